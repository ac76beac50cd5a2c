/**
 * How many content tokens of A and B to keep so that together they fit `budget` (maxLength
 * minus the template's special tokens): Hugging Face tokenizers' LongestFirst, ported as is,
 * including which side keeps the odd token (when both must be cut, the shorter keeps
 * floor(budget / 2) and the longer ceil; on equal lengths A keeps the floor).
 *
 * Pass the lengths the Rust tokenizer compares: each sequence's length capped at the end of
 * the word that reaches maxLength (BertTokenizer.cappedLength), not the full length.
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
