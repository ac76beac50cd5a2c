/** Records a cold-start ask for the placer (PlacementDemand.request with this worker's id). */
export type DemandWriter = (model: string, version: number) => Promise<void>;

/**
 * Asks the placer to load a version a job is pinned to while no backend holds it. Every parked
 * chunk of the version passes here, so the ask is written at most once per `everyMs` per
 * version (a job of a thousand chunks is one demand, renewed while it waits, not a thousand).
 */
export class ColdStartRequester {
  private readonly askedAt = new Map<string, number>();

  constructor(
    private readonly write: DemandWriter,
    private readonly everyMs: number,
    private readonly warn: (fields: Record<string, unknown>, message: string) => void,
    private readonly now: () => number = Date.now,
  ) {}

  ask(model: string, version: number): void {
    const k = `${model}@${version}`;
    const now = this.now();
    const last = this.askedAt.get(k);
    if (last !== undefined && now - last < this.everyMs) return;
    this.askedAt.set(k, now);
    // Best effort: the chunk parks either way and checks again after its wait.
    this.write(model, version).catch((err: unknown) => {
      this.askedAt.delete(k);
      this.warn({ err, model, version }, 'cold-start demand could not be recorded');
    });
  }
}
