import type { SessionOptionsData } from './ort-worker.protocol';
import { loneSessionOptions } from './session-pool.client';

describe('loneSessionOptions', () => {
  const instance: SessionOptionsData = {
    modelPath: '/models/m/1/model.onnx',
    intraOpThreads: 1,
    interOpThreads: 1,
    graphOptimizationLevel: 'all',
    allowSpinning: false,
  };

  it('gives the lone session its threads and spinning pools, and leaves the rest as the instances have it', () => {
    expect(loneSessionOptions(instance, 4)).toEqual({
      ...instance,
      intraOpThreads: 4,
      allowSpinning: true,
    });
    expect(instance.allowSpinning).toBe(false);
  });
});
