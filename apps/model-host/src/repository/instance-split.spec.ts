import { classifierConfig } from '../testing/model-config-fixture';
import {
  FAST_BATCH1_MS,
  chooseInstanceSplit,
  configuredInstances,
  splitForThreads,
} from './instance-split';
import { decideSplit, type SessionDefaults } from './model-version-loader';
import type { ModelVersionSpec } from '../core/model-spec';

const config = (extra: string) => classifierConfig(extra, 8);

describe('chooseInstanceSplit', () => {
  it('gives a fast model one single-threaded instance per core', () => {
    expect(chooseInstanceSplit(2, 3.2)).toMatchObject({ instances: 2, intraOpThreads: 1 });
    expect(chooseInstanceSplit(8, FAST_BATCH1_MS)).toMatchObject({
      instances: 8,
      intraOpThreads: 1,
    });
    expect(chooseInstanceSplit(2, 3.2).reason).toContain('3.2 ms on one thread');
  });

  it('gives a slower model fewer instances with more threads, doubling with its cost', () => {
    expect(chooseInstanceSplit(2, 15)).toMatchObject({ instances: 1, intraOpThreads: 2 });
    expect(chooseInstanceSplit(8, 15)).toMatchObject({ instances: 4, intraOpThreads: 2 });
    expect(chooseInstanceSplit(8, 35)).toMatchObject({ instances: 2, intraOpThreads: 4 });
    // Never more threads than cores.
    expect(chooseInstanceSplit(8, 500)).toMatchObject({ instances: 1, intraOpThreads: 8 });
    expect(chooseInstanceSplit(6, 35)).toMatchObject({ instances: 1, intraOpThreads: 4 });
  });

  it('runs one single-threaded instance on one core, whatever the cost', () => {
    expect(chooseInstanceSplit(1, 500)).toMatchObject({ instances: 1, intraOpThreads: 1 });
  });
});

describe('splitForThreads', () => {
  it('fills the cores with instances of the threads set', () => {
    expect(splitForThreads(2, 1)).toMatchObject({ instances: 2, intraOpThreads: 1 });
    expect(splitForThreads(8, 3)).toMatchObject({ instances: 2, intraOpThreads: 3 });
    expect(splitForThreads(2, 4)).toMatchObject({ instances: 1, intraOpThreads: 4 });
  });
});

describe('decideSplit', () => {
  const defaults: SessionDefaults = {
    intraOpThreads: undefined,
    interOpThreads: 1,
    graphOptimizationLevel: 'all',
    allowSpinning: true,
    cores: 8,
  };
  const spec = { model: 'm', version: '1' } as ModelVersionSpec;

  it('takes an instance_group count as written, without measuring or a reason to log', async () => {
    const c = config('instance_group [ { count: 3 kind: KIND_CPU } ]');
    expect(configuredInstances(c)).toBe(3);
    // No model file exists: a measurement would fail the load.
    await expect(decideSplit(c, spec, '/nonexistent.onnx', defaults)).resolves.toEqual({
      instances: 3,
      intraOpThreads: 2,
    });
    const threads = config(
      'instance_group [ { count: 1 } ]\nparameters { key: "intra_op_thread_count" value: { string_value: "3" } }',
    );
    await expect(decideSplit(threads, spec, '/nonexistent.onnx', defaults)).resolves.toEqual({
      instances: 1,
      intraOpThreads: 3,
    });
  });

  it('treats an instance_group that writes no count (or count 0) as no count', async () => {
    for (const group of [
      'instance_group [ { kind: KIND_CPU } ]',
      'instance_group [ { count: 0 } ]',
    ]) {
      const c = config(group);
      expect(configuredInstances(c)).toBeUndefined();
      await expect(
        decideSplit(c, spec, '/nonexistent.onnx', { ...defaults, intraOpThreads: 4 }),
      ).resolves.toMatchObject({ instances: 2, intraOpThreads: 4, reason: expect.any(String) });
    }
    // One group with a count is enough for the written counts to win.
    expect(
      configuredInstances(
        config('instance_group [ { kind: KIND_CPU }, { count: 2 kind: KIND_CPU } ]'),
      ),
    ).toBe(3);
  });

  it('without an instance_group, fills the cores with the threads set explicitly', async () => {
    const c = config('');
    expect(configuredInstances(c)).toBeUndefined();
    await expect(
      decideSplit(c, spec, '/nonexistent.onnx', { ...defaults, intraOpThreads: 2 }),
    ).resolves.toMatchObject({ instances: 4, intraOpThreads: 2, reason: expect.any(String) });
  });
});
