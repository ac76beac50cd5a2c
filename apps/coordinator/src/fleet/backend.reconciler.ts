import type { Logger } from 'pino';
import type { DesiredVersions } from '../rollout/rollout.ports';
import type { KServeBackendFleet } from './kserve-backend.fleet';

/**
 * Brings backends back to the versions rollouts decided: a backend that restarted (and loaded
 * whatever its config.pbtxt selects, or nothing) is loaded again with the desired versions.
 */
export class BackendReconciler {
  constructor(
    private readonly fleet: Pick<KServeBackendFleet, 'readyVersions' | 'serve'>,
    private readonly desired: DesiredVersions,
    private readonly logger: Logger,
  ) {}

  /** One pass over every model a rollout touched; resolves to the number of loads issued. */
  async reconcile(): Promise<number> {
    let loads = 0;
    for (const [model, versions] of await this.desired.all()) {
      const actual = await this.fleet.readyVersions(model);
      const drifted = [...actual.entries()]
        .filter(([, v]) => !(v instanceof Error) && v.join(',') !== versions.join(','))
        .map(([address, v]) => ({ address, versions: v as number[] }));
      if (drifted.length === 0) continue;
      for (const d of drifted) {
        this.logger.info(
          { event: 'reconcile', model, backend: d.address, serving: d.versions, desired: versions },
          'backend drifted from the desired versions; loading them',
        );
      }
      try {
        await this.fleet.serve(
          model,
          versions,
          drifted.map((d) => d.address),
        );
        loads += drifted.length;
      } catch (err: unknown) {
        this.logger.warn({ err, model }, 'reconcile load failed; retrying on the next pass');
      }
    }
    return loads;
  }
}
