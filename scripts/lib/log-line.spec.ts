// eslint-disable-next-line @typescript-eslint/no-require-imports
const { formatLogLine } = require('./log-line') as {
  formatLogLine(line: string): { text: string; event?: Record<string, unknown> };
};

const json = (o: object) => JSON.stringify(o);

describe('formatLogLine (npm run up)', () => {
  it('names the model and version of a version routable line', () => {
    const line = json({
      level: 'info',
      event: 'version-verified',
      model: 'intent-zh',
      version: '2',
      backends: ['127.0.0.1:8001'],
      msg: 'version routable',
    });
    expect(formatLogLine(line).text).toBe('info  version routable: intent-zh v2');
  });

  it('adds why a version is unroutable', () => {
    const line = json({
      level: 'warn',
      model: 'sentiment-en',
      version: 1,
      reason: 'no backend reports sentiment-en v1 READY',
      msg: 'version unroutable',
    });
    expect(formatLogLine(line).text).toBe(
      'warn  version unroutable: sentiment-en v1 — no backend reports sentiment-en v1 READY',
    );
  });

  it('keeps the Nest context, error messages and lines without a model', () => {
    expect(
      formatLogLine(json({ level: 'error', context: 'Boot', msg: 'failed', err: { message: 'x' } }))
        .text,
    ).toBe('error [Boot] failed — x');
    expect(formatLogLine(json({ level: 'info', model: 'x1', msg: 'loaded' })).text).toBe(
      'info  loaded: x1',
    );
    expect(
      formatLogLine(json({ level: 'info', model: 'intent-zh', msg: "model 'intent-zh' ready" }))
        .text,
    ).toBe("info  model 'intent-zh' ready");
  });

  it('passes plain text through and exposes the parsed event', () => {
    expect(formatLogLine('plain text')).toEqual({ text: 'plain text', event: undefined });
    expect(formatLogLine('{not json')).toEqual({ text: '{not json', event: undefined });
    const { event } = formatLogLine(json({ event: 'redis', keyPrefix: 'mesh', msg: 'redis' }));
    expect(event).toMatchObject({ event: 'redis', keyPrefix: 'mesh' });
  });
});
