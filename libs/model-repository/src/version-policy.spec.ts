import type { VersionPolicy } from './model-config.types';
import { DEFAULT_VERSION_POLICY, missingVersions, selectVersions } from './version-policy';

describe('selectVersions', () => {
  it.each<[string, VersionPolicy | undefined, number[], number[]]>([
    ['no policy: the highest version only', undefined, [1, 3, 2], [3]],
    ['latest 1', { latest: { numVersions: 1 } }, [10, 9], [10]],
    ['latest 2', { latest: { numVersions: 2 } }, [1, 2, 3], [2, 3]],
    ['latest more than available', { latest: { numVersions: 5 } }, [2, 1], [1, 2]],
    ['latest with nothing on disk', { latest: { numVersions: 1 } }, [], []],
    ['all', { all: {} }, [3, 1, 2], [1, 2, 3]],
    ['specific, present ones only', { specific: { versions: [3, 1, 7] } }, [1, 2, 3], [1, 3]],
    ['specific, none present', { specific: { versions: [9] } }, [1], []],
    ['numeric (not lexical) order', { latest: { numVersions: 1 } }, [9, 10, 2], [10]],
    ['duplicates collapsed', { all: {} }, [2, 2, 1], [1, 2]],
  ])('%s', (_name, policy, available, expected) => {
    expect(selectVersions(policy, available)).toEqual(expected);
  });

  it('defaults to Triton latest { num_versions: 1 }', () => {
    expect(DEFAULT_VERSION_POLICY).toEqual({ latest: { numVersions: 1 } });
  });

  it('does not reorder the caller array', () => {
    const available = [3, 1, 2];
    selectVersions({ all: {} }, available);
    expect(available).toEqual([3, 1, 2]);
  });
});

describe('missingVersions', () => {
  it.each<[string, VersionPolicy | undefined, number[], number[]]>([
    ['specific versions not on disk', { specific: { versions: [4, 1, 2] } }, [1], [2, 4]],
    ['nothing missing', { specific: { versions: [1] } }, [1, 2], []],
    ['latest never misses', { latest: { numVersions: 3 } }, [1], []],
    ['no policy', undefined, [], []],
  ])('%s', (_name, policy, available, expected) => {
    expect(missingVersions(policy, available)).toEqual(expected);
  });
});
