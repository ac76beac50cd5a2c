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

  it('gives the lone session its threads and leaves the rest, spinning included, as the instances have it', () => {
    expect(loneSessionOptions(instance, 4)).toEqual({ ...instance, intraOpThreads: 4 });
    expect(instance.intraOpThreads).toBe(1);
  });

  it('does not spin when the instances may not (ORT_ALLOW_SPINNING=0)', () => {
    expect(loneSessionOptions({ ...instance, allowSpinning: false }, 4).allowSpinning).toBe(false);
  });
});
