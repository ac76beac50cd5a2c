import type { PairTruncation } from './pipeline.registry';

/**
 * How many content tokens of A and B to keep so that together they fit `budget`
 * (maxLength minus the template's special tokens).
 *
 * `longest_first` mirrors Hugging Face tokenizers' LongestFirst exactly (including which side
 * gets the odd token). `only_second` removes tokens from the end of B; when B alone cannot
 * absorb the excess (where Hugging Face would raise an error) B is emptied and A is cut too.
 *
 * Inputs may be capped counts (any value above `budget` stands for "longer than budget"); the
 * result is the same as for the exact counts except for `longest_first` when both exceed the
 * budget, where the caller must pass exact counts.
 */
export function pairKeepLengths(
  strategy: PairTruncation,
  lenA: number,
  lenB: number,
  budget: number,
): [number, number] {
  if (lenA + lenB <= budget) return [lenA, lenB];
  switch (strategy) {
    case 'only_second': {
      const keepB = Math.max(0, budget - lenA);
      return [Math.min(lenA, budget - keepB), keepB];
    }
    case 'longest_first':
      return longestFirst(lenA, lenB, budget);
  }
}

function longestFirst(lenA: number, lenB: number, budget: number): [number, number] {
  const swap = lenA > lenB;
  let n1 = swap ? lenB : lenA;
  let n2: number;
  if (n1 > budget) {
    n2 = n1;
  } else {
    n2 = Math.max(n1, budget - n1);
  }
  if (n1 + n2 > budget) {
    n1 = Math.floor(budget / 2);
    n2 = n1 + (budget % 2);
  }
  const [keepA, keepB] = swap ? [n2, n1] : [n1, n2];
  return [Math.min(keepA, lenA), Math.min(keepB, lenB)];
}
