/** One version a load would add, with the footprint the budget counts for it. */
export interface IncomingVersion {
  model: string;
  version: string;
  /** Declared `memory_mb_v<N>`, else the estimate (file size × (instances + 1)). */
  mb: number;
  /** Whether `mb` is the declared value (for the refusal message). */
  declared: boolean;
}

export interface BudgetQuestion {
  /** MODEL_HOST_MEMORY_BUDGET_MB; undefined = unlimited. */
  budgetMb: number | undefined;
  /** Every serving version's footprint plus builds in progress elsewhere. */
  usedMb: number;
  /** Footprints of serving versions this load retires or rebuilds: freed by it. */
  freedMb: number;
  incoming: readonly IncomingVersion[];
}

/** Why a load is refused: the first version that would pass the budget, and the sums. */
export interface BudgetRefusal {
  model: string;
  version: string;
  footprintMb: number;
  declared: boolean;
  /** Used before this version, with the load's freed versions already taken off. */
  usedMb: number;
  budgetMb: number;
}

/**
 * Whether a load fits the host's memory budget. Pure, so the placer's arithmetic and the host's
 * agree on one rule: resident − freed + incoming ≤ budget. Versions are added in the order
 * given and the first that passes the budget is named. Without a budget everything fits.
 */
export function checkMemoryBudget(q: BudgetQuestion): BudgetRefusal | undefined {
  if (q.budgetMb === undefined) return undefined;
  let used = Math.max(0, q.usedMb - q.freedMb);
  for (const v of q.incoming) {
    if (used + v.mb > q.budgetMb) {
      return {
        model: v.model,
        version: v.version,
        footprintMb: v.mb,
        declared: v.declared,
        usedMb: used,
        budgetMb: q.budgetMb,
      };
    }
    used += v.mb;
  }
  return undefined;
}

/** The refusal as one sentence an operator can act on. */
export function budgetRefusalMessage(r: BudgetRefusal): string {
  const how = r.declared ? 'declared memory_mb_v' + r.version : 'estimated';
  return (
    `loading model '${r.model}' version ${r.version} needs ${r.footprintMb} MB (${how}), but ` +
    `${r.usedMb} MB of the memory budget of ${r.budgetMb} MB (MODEL_HOST_MEMORY_BUDGET_MB) is ` +
    `in use: ${r.usedMb + r.footprintMb} MB would exceed it; unload a version first`
  );
}
