import type { RedisClient } from '@mesh/config';
import { memoryParameterKey } from '@mesh/model-repository';
import { PlacementKeys } from './placement.keys';
import type { BackendLedger } from './placement.types';

/**
 * Reads what the placer last wrote about each backend: budget, MB in use and resident versions.
 * Edges that refuse a version too large for every backend (route edits, rollout plans) and the
 * dashboard read it; only the placer writes it.
 */
export class PlacementLedgerReader {
  private readonly keys: PlacementKeys;

  constructor(
    private readonly redis: RedisClient,
    keyPrefix: string,
  ) {
    this.keys = new PlacementKeys(keyPrefix);
  }

  async all(): Promise<BackendLedger[]> {
    const raw = await this.redis.hgetall(this.keys.ledger());
    const out: BackendLedger[] = [];
    for (const json of Object.values(raw)) {
      try {
        out.push(JSON.parse(json) as BackendLedger);
      } catch {
        // One unreadable entry (written by a newer placer) hides that backend, not the rest.
      }
    }
    return out.sort((a, b) => a.backend.localeCompare(b.backend));
  }

  /**
   * The largest budget among the known backends: null when any backend is unlimited or none is
   * known yet (nothing can be refused then).
   */
  async largestBudgetMb(): Promise<number | null> {
    const ledgers = await this.all();
    if (ledgers.length === 0 || ledgers.some((l) => l.budgetMb === null)) return null;
    return Math.max(...ledgers.map((l) => l.budgetMb as number));
  }
}

/**
 * Why a version of `mb` MB cannot be placed under `largestBudgetMb`, or undefined when it fits
 * (or either number is unknown). The message names the version, its footprint and the budget.
 */
export function tooLargeReason(
  model: string,
  version: number,
  mb: number | undefined,
  largestBudgetMb: number | null,
): string | undefined {
  if (mb === undefined || largestBudgetMb === null || mb <= largestBudgetMb) return undefined;
  return `version ${version} of model '${model}' needs ${mb} MB (${memoryParameterKey(version)}), more than the largest backend budget (${largestBudgetMb} MB)`;
}
