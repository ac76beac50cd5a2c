import type { ModelVersionRef, TrafficSignalRecorder } from '@mesh/signals';

/**
 * Per-version traffic this router is handling: requests in flight (for the heartbeat, so a
 * drain can wait for zero) and finished requests handed to the signal recorder (in-memory;
 * flushed to Redis off the request path).
 */
export class VersionTraffic {
  private readonly inFlight = new Map<string, { model: string; version: number; count: number }>();

  constructor(private readonly recorder?: TrafficSignalRecorder) {}

  begin(model: string, version: number): void {
    const k = `${model}\u0000${version}`;
    const entry = this.inFlight.get(k);
    if (entry) entry.count += 1;
    else this.inFlight.set(k, { model, version, count: 1 });
  }

  /** Ends a request begun with `begin`; `outcome` is `ok` or the error code. */
  end(task: string, model: string, version: number, outcome: string, latencyMs: number): void {
    const k = `${model}\u0000${version}`;
    const entry = this.inFlight.get(k);
    if (entry) {
      entry.count -= 1;
      if (entry.count <= 0) this.inFlight.delete(k);
    }
    this.recorder?.record({ task, model, version, outcome, latencyMs });
  }

  inFlightNow(): (ModelVersionRef & { count: number })[] {
    return [...this.inFlight.values()].map((e) => ({ ...e }));
  }
}
