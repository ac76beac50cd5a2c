import { defaultIntraOpThreads } from './model-version.loader';

describe('defaultIntraOpThreads', () => {
  it('splits the available cores over the instances, at least one thread each', () => {
    expect(defaultIntraOpThreads(2, 1)).toBe(2);
    expect(defaultIntraOpThreads(2, 2)).toBe(1);
    expect(defaultIntraOpThreads(2, 4)).toBe(1);
    expect(defaultIntraOpThreads(8, 3)).toBe(2);
    expect(defaultIntraOpThreads(1, 0)).toBe(1);
  });
});
