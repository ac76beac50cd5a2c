import { longestFirstKeep } from './truncation';

describe('longestFirstKeep', () => {
  it.each([
    // lenA, lenB, budget → keepA, keepB
    [3, 4, 10, [3, 4]], // fits
    [20, 3, 10, [7, 3]], // only the longer one is cut
    [3, 20, 10, [3, 7]],
    [12, 11, 21, [11, 10]], // both cut: the longer keeps the odd token
    [11, 12, 21, [10, 11]],
    [30, 30, 21, [10, 11]], // equal lengths: B keeps the odd token
    [30, 30, 20, [10, 10]],
    [0, 50, 13, [0, 13]],
  ])('(%i, %i) within %i keeps %j', (a, b, budget, expected) => {
    expect(longestFirstKeep(a, b, budget)).toEqual(expected);
  });
});
