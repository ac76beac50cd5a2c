import type { SessionOptionsData } from './ort-worker-protocol';
import { instanceSessionOptions, loneSessionOptions } from './pool-session-options';

const configured: SessionOptionsData = {
  modelPath: '/models/m/1/model.onnx',
  intraOpThreads: 2,
  interOpThreads: 1,
  graphOptimizationLevel: 'all',
  allowSpinning: true,
  spinBetweenRuns: true,
};

describe('instanceSessionOptions', () => {
  it('keeps the configured spinning when no lone-batch session serves the lone requests', () => {
    expect(instanceSessionOptions(configured, 0)).toEqual(configured);
  });

  it('turns spinning off, during and past runs, beside a lone-batch session, and nothing else', () => {
    expect(instanceSessionOptions(configured, 2)).toEqual({
      ...configured,
      allowSpinning: false,
      spinBetweenRuns: false,
    });
    expect(configured.allowSpinning).toBe(true);
  });
});

describe('loneSessionOptions', () => {
  it('gives the session its threads and keeps spinning during runs as configured', () => {
    const lone = loneSessionOptions({ ...configured, intraOpThreads: 1 }, 4, 2);
    expect(lone).toEqual({
      ...configured,
      intraOpThreads: 4,
      spinBetweenRuns: false,
      poolThreadNice: 0,
    });
  });

  it('keeps its pool threads at the host priority, where the instances give theirs way', () => {
    const niced = { ...configured, poolThreadNice: 19 };
    expect(loneSessionOptions(niced, 2, 1).poolThreadNice).toBe(0);
    expect(loneSessionOptions(niced, 2, 2).poolThreadNice).toBe(0);
    expect(instanceSessionOptions(niced, 0).poolThreadNice).toBe(19);
  });

  it('never spins past its run beside several instances (batches run beside it)', () => {
    expect(loneSessionOptions(configured, 2, 2).spinBetweenRuns).toBe(false);
    expect(loneSessionOptions(configured, 4, 3).spinBetweenRuns).toBe(false);
  });

  it('as the twin of a single instance, spins past its runs as configured', () => {
    expect(loneSessionOptions(configured, 2, 1).spinBetweenRuns).toBe(true);
    expect(
      loneSessionOptions({ ...configured, spinBetweenRuns: false }, 2, 1).spinBetweenRuns,
    ).toBe(false);
    expect(loneSessionOptions({ ...configured, spinBetweenRuns: undefined }, 2, 1)).toMatchObject({
      spinBetweenRuns: false,
    });
  });

  it('does not spin where the model or host turns spinning off', () => {
    const off = { ...configured, allowSpinning: false, spinBetweenRuns: false };
    expect(loneSessionOptions(off, 2, 1)).toMatchObject({
      allowSpinning: false,
      spinBetweenRuns: false,
    });
  });
});
