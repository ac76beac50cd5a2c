/**
 * How many content tokens of A and B to keep so that together they fit `budget` (maxLength
 * minus the template's special tokens), exactly as Hugging Face tokenizers' LongestFirst
 * strategy does, including which side gets the odd token: when both must be cut, the longer
 * input keeps ceil(budget / 2), and on equal lengths B does.
 *
 * Counts may be capped (any value above `budget` stands for "longer than budget") unless both
 * exceed the budget: then which one is longer matters and the caller passes exact counts.
 */
export function longestFirstKeep(lenA: number, lenB: number, budget: number): [number, number] {
  if (lenA + lenB <= budget) return [lenA, lenB];
  const swap = lenA > lenB;
  let n1 = swap ? lenB : lenA;
  let n2 = n1 > budget ? n1 : Math.max(n1, budget - n1);
  if (n1 + n2 > budget) {
    n1 = Math.floor(budget / 2);
    n2 = n1 + (budget % 2);
  }
  const [keepA, keepB] = swap ? [n2, n1] : [n1, n2];
  return [Math.min(keepA, lenA), Math.min(keepB, lenB)];
}
