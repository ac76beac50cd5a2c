import { tooLargeReason, versionKey } from '@mesh/placement';
import { ModelTooLargeError } from './placement.errors';

/**
 * Refuses a version that no backend could hold: its footprint (measured by a backend, else
 * declared or estimated from the repository) above the largest budget the placer's ledger
 * knows. Nothing is refused while any backend is unbudgeted or no ledger was written yet.
 */
export class VersionSizeCheck {
  constructor(
    private readonly measured: { footprints(): Promise<Map<string, number>> },
    private readonly catalog: {
      footprintMb(model: string, version: number): Promise<{ mb: number } | undefined>;
    },
    private readonly ledger: { largestBudgetMb(): Promise<number | null> },
  ) {}

  async refuseTooLarge(model: string, version: number): Promise<void> {
    const largest = await this.ledger.largestBudgetMb();
    if (largest === null) return;
    const mb =
      (await this.measured.footprints()).get(versionKey(model, version)) ??
      (await this.catalog.footprintMb(model, version))?.mb;
    if (mb !== undefined && tooLargeReason(model, version, mb, largest)) {
      throw new ModelTooLargeError(model, version, mb, largest);
    }
  }
}
