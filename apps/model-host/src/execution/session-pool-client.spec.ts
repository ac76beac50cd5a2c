import type { SessionOptionsData } from './ort-worker-protocol';
import { loneSessionOptions } from './session-pool-client';

describe('loneSessionOptions', () => {
  const instance: SessionOptionsData = {
    modelPath: '/models/m/1/model.onnx',
    intraOpThreads: 1,
    interOpThreads: 1,
    graphOptimizationLevel: 'all',
    allowSpinning: true,
  };

  it('gives the lone session its threads and leaves the rest, spinning during runs included, as the instances have it', () => {
    expect(loneSessionOptions(instance, 4)).toEqual({
      ...instance,
      intraOpThreads: 4,
      spinBetweenRuns: false,
    });
    expect(instance.intraOpThreads).toBe(1);
  });

  it('never spins past its run, even where the instances do (batches may start beside it)', () => {
    const spinning = { ...instance, spinBetweenRuns: true };
    expect(loneSessionOptions(spinning, 4).spinBetweenRuns).toBe(false);
  });

  it('does not spin when the instances may not (ORT_ALLOW_SPINNING=0)', () => {
    expect(loneSessionOptions({ ...instance, allowSpinning: false }, 4).allowSpinning).toBe(false);
  });
});
