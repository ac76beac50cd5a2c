/** What a request's inputs need from the version that serves them. */
export interface InputNeeds {
  /** Some input carries a textPair: only a pair-capable pipeline (and no embedder) can serve it. */
  pairs: boolean;
}

type Reason = (model: string, version: number) => string | undefined;

/**
 * Narrows an unroutable-reason function to the versions able to serve every input: a version
 * whose pipeline cannot take the inputs counts as unroutable, with that reason, so the
 * weighted pick chooses among the capable ones only (and a 503 says why none is).
 * `pairsProblem` answers why a version cannot take pairs, or undefined when it can.
 */
export function requireInputCapability(
  base: Reason,
  needs: InputNeeds,
  pairsProblem: Reason,
): Reason {
  if (!needs.pairs) return base;
  return (model, version) => base(model, version) ?? pairsProblem(model, version);
}
