import type { ModelConfig } from '@mesh/model-repository';
import { flagParameter, nonNegativeIntParameter } from './config-parameters';
import { ModelLoadError } from './model-load.errors';

function withParameter(key: string, value: string): ModelConfig {
  return { parameters: { [key]: { stringValue: value } } } as unknown as ModelConfig;
}
const none = { parameters: {} } as unknown as ModelConfig;

describe('flagParameter', () => {
  it.each([
    ['1', true],
    ['true', true],
    ['0', false],
    ['false', false],
  ])('reads "%s" as %s, whatever the fallback', (raw, expected) => {
    expect(flagParameter(withParameter('f', raw), 'f', !expected)).toBe(expected);
  });

  it('falls back when the parameter is absent', () => {
    expect(flagParameter(none, 'f', true)).toBe(true);
    expect(flagParameter(none, 'f', false)).toBe(false);
  });

  it('fails the load on any other value, naming the parameter', () => {
    const read = () =>
      flagParameter(withParameter('dispatch_when_idle', 'yes'), 'dispatch_when_idle', true);
    expect(read).toThrow(ModelLoadError);
    expect(read).toThrow(
      `parameter 'dispatch_when_idle' must be one of 0, 1, false, true (got "yes")`,
    );
  });
});

describe('nonNegativeIntParameter', () => {
  it('reads an integer >= 0, and undefined when absent', () => {
    expect(nonNegativeIntParameter(withParameter('n', '0'), 'n')).toBe(0);
    expect(nonNegativeIntParameter(withParameter('n', '12'), 'n')).toBe(12);
    expect(nonNegativeIntParameter(none, 'n')).toBeUndefined();
  });

  it.each(['-1', '1.5', 'two', ''])('fails the load on "%s", naming the parameter', (raw) => {
    const read = () =>
      nonNegativeIntParameter(withParameter('lone_batch_threads', raw), 'lone_batch_threads');
    expect(read).toThrow(ModelLoadError);
    expect(read).toThrow(`parameter 'lone_batch_threads' must be an integer >= 0 (got "${raw}")`);
  });
});
