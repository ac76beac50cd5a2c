import type { RouterHeartbeat } from '@mesh/signals';
import type { DrainStatus, RouterFleet, RoutingVerdict } from '../rollout-ports';

/** The live (unexpired) heartbeats of every router (RouterHeartbeatRepository). */
export interface HeartbeatSource {
  readLive(): Promise<RouterHeartbeat[]>;
}

/** Readiness and drain questions answered from the routers' heartbeats. */
export class HeartbeatRouterFleet implements RouterFleet {
  constructor(private readonly heartbeats: HeartbeatSource) {}

  async canAllRoute(model: string, version: number, minEpoch: number): Promise<RoutingVerdict> {
    const live = await this.heartbeats.readLive();
    const blocking: string[] = [];
    for (const hb of live) {
      if (hb.epoch < minEpoch) {
        blocking.push(`${hb.routerId}: at epoch ${hb.epoch}, needs ${minEpoch}`);
      } else if (!hb.routable.some((r) => r.model === model && r.version === version)) {
        const why = hb.unroutable.find((u) => u.model === model && u.version === version);
        blocking.push(`${hb.routerId}: ${why?.reason ?? 'does not list the version'}`);
      }
    }
    if (live.length === 0) blocking.push('no live router heartbeats');
    return { ok: blocking.length === 0, routers: live.length, blocking };
  }

  async drainStatus(model: string, versions: number[], minEpoch: number): Promise<DrainStatus> {
    const live = await this.heartbeats.readLive();
    const behind = live.filter((hb) => hb.epoch < minEpoch).map((hb) => hb.routerId);
    const inFlight = live
      .flatMap((hb) => hb.inFlight)
      .filter((f) => f.model === model && versions.includes(f.version))
      .reduce((sum, f) => sum + f.count, 0);
    return { routers: live.length, behind, inFlight };
  }
}
