import { fieldPath, oneOfMessage } from './error-messages';

describe('error messages', () => {
  it.each([
    [[], ''],
    [['text'], 'text'],
    [['texts', 3], 'texts[3]'],
    [['steps', 2, 'weight'], 'steps[2].weight'],
    [['window', 'cron'], 'window.cron'],
    [[0, 'text'], '[0].text'],
  ] as const)('names the field at %j as %j', (path, expected) => {
    expect(fieldPath(path)).toBe(expected);
  });

  it('lists the allowed values and echoes what came, cut when long', () => {
    expect(oneOfMessage(['pause', 'resume'], 'foo')).toBe(
      "must be one of pause, resume (got 'foo')",
    );
    expect(oneOfMessage(['a'], undefined)).toBe('must be one of a (got nothing)');
    expect(oneOfMessage(['a'], 5)).toBe('must be one of a (got 5)');
    expect(oneOfMessage(['a'], 'x'.repeat(500)).length).toBeLessThan(100);
  });
});
