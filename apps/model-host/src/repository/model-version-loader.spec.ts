import { parseModelConfig } from '@mesh/model-repository';
import {
  defaultIntraOpThreads,
  defaultLoneBatchThreads,
  sessionOptions,
  type SessionDefaults,
} from './model-version-loader';

describe('defaultIntraOpThreads', () => {
  it('splits the available cores over the instances, at least one thread each', () => {
    expect(defaultIntraOpThreads(2, 1)).toBe(2);
    expect(defaultIntraOpThreads(2, 2)).toBe(1);
    expect(defaultIntraOpThreads(2, 4)).toBe(1);
    expect(defaultIntraOpThreads(8, 3)).toBe(2);
    expect(defaultIntraOpThreads(1, 0)).toBe(1);
  });
});

describe('defaultLoneBatchThreads', () => {
  it('gives several instances that split the cores one session with every core, else none', () => {
    expect(defaultLoneBatchThreads(2, 2, 1)).toBe(2);
    expect(defaultLoneBatchThreads(8, 4, 2)).toBe(8);
    // One instance already has every core; instances that each have them all need nothing.
    expect(defaultLoneBatchThreads(2, 1, 2)).toBe(0);
    expect(defaultLoneBatchThreads(2, 2, 2)).toBe(0);
    expect(defaultLoneBatchThreads(1, 2, 1)).toBe(0);
  });
});

describe('sessionOptions spinning', () => {
  const defaults: SessionDefaults = {
    intraOpThreads: undefined,
    interOpThreads: 1,
    graphOptimizationLevel: 'all',
    allowSpinning: true,
    spinBetweenRuns: true,
    cores: 2,
  };
  const configWith = (parameters: Record<string, string>) =>
    parseModelConfig(
      [
        'name: "m"',
        'platform: "onnxruntime_onnx"',
        ...Object.entries(parameters).map(
          ([key, value]) => `parameters { key: "${key}" value { string_value: "${value}" } }`,
        ),
      ].join('\n'),
      'config.pbtxt',
    );
  const options = (parameters: Record<string, string>, d = defaults) =>
    sessionOptions(configWith(parameters), '/m/1/model.onnx', d, 2);

  it('follows the host default, and a model parameter overrides it either way', () => {
    expect(options({}).spinBetweenRuns).toBe(true);
    expect(options({}, { ...defaults, spinBetweenRuns: false }).spinBetweenRuns).toBe(false);
    expect(options({ spin_between_runs: '0' }).spinBetweenRuns).toBe(false);
    const off = { ...defaults, spinBetweenRuns: false };
    expect(options({ spin_between_runs: 'true' }, off).spinBetweenRuns).toBe(true);
  });

  it('never spins between runs where the session may not spin at all', () => {
    expect(options({ allow_spinning: '0' })).toMatchObject({
      allowSpinning: false,
      spinBetweenRuns: false,
    });
  });

  it('refuses a value that is not a flag, naming the parameter', () => {
    expect(() => options({ spin_between_runs: 'yes' })).toThrow(
      `parameter 'spin_between_runs' must be one of 0, 1, false, true (got "yes")`,
    );
  });
});
