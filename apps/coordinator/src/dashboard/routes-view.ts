import type { AuditEntry, RoutingTableRepository, ShadowConfig } from '@mesh/routing';
import {
  routeBlockReason,
  type RouterHeartbeat,
  type RouterHeartbeatRepository,
} from '@mesh/signals';
import type { RolloutRepository } from '../rollout/rollout.repository';

/** One version of a route with whether every live router can route it now. */
export interface RouteVersionRow {
  version: number;
  weight: number;
  /** True only with at least one live router and none blocking. */
  routable: boolean;
  /** Routers that cannot route this version, each with its reason (from its heartbeat). */
  blocking: { routerId: string; reason: string }[];
}

export interface RouteRow {
  tenant: string;
  task: string;
  model: string;
  versions: RouteVersionRow[];
  shadow?: ShadowConfig;
  /** Id of the rollout currently driving this route, if any: manual edits wait for it. */
  activeRollout?: string;
  /** Newest audit entries naming this route. */
  audit: AuditEntry[];
}

export interface RouterRow {
  routerId: string;
  epoch: number;
  /** Unix ms of the router's last heartbeat (its own clock). */
  at: number;
  inFlight: number;
}

export interface RoutesView {
  /** Null while the table was never seeded. */
  epoch: number | null;
  routers: RouterRow[];
  routes: RouteRow[];
  /** Newest audit entries of the whole table. */
  audit: AuditEntry[];
}

/** Audit entries read per view: enough for the last few changes of every route. */
const AUDIT_WINDOW = 200;
const AUDIT_PER_ROUTE = 5;
const AUDIT_RECENT = 10;

/** The Routes view: routing table, routers' heartbeats and audit, joined per route. */
export class RoutesViewReader {
  constructor(
    private readonly table: RoutingTableRepository,
    private readonly heartbeats: RouterHeartbeatRepository,
    private readonly rollouts: Pick<RolloutRepository, 'activeId'>,
  ) {}

  async read(): Promise<RoutesView> {
    const [table, live, audit] = await Promise.all([
      this.table.load(),
      this.heartbeats.readLive(),
      this.table.auditLog(AUDIT_WINDOW),
    ]);
    const epoch = table?.epoch ?? null;
    const routes = await Promise.all(
      (table?.routes ?? []).map(async (route): Promise<RouteRow> => {
        const target = `${route.tenant}/${route.task}`;
        const activeRollout = await this.rollouts.activeId(route.tenant, route.task);
        return {
          tenant: route.tenant,
          task: route.task,
          model: route.model,
          versions: route.versions.map((v) => ({
            ...v,
            ...routability(live, route.model, v.version, epoch ?? 0),
          })),
          ...(route.shadow ? { shadow: route.shadow } : {}),
          ...(activeRollout ? { activeRollout } : {}),
          audit: audit.filter((e) => e.target === target).slice(0, AUDIT_PER_ROUTE),
        };
      }),
    );
    return {
      epoch,
      routers: live.map((hb) => ({
        routerId: hb.routerId,
        epoch: hb.epoch,
        at: hb.at,
        inFlight: hb.inFlight.reduce((sum, f) => sum + f.count, 0),
      })),
      routes,
      audit: audit.slice(0, AUDIT_RECENT),
    };
  }
}

/** The rollout gate's rule (routeBlockReason) applied to heartbeats read once for the view. */
function routability(
  live: readonly RouterHeartbeat[],
  model: string,
  version: number,
  epoch: number,
): Pick<RouteVersionRow, 'routable' | 'blocking'> {
  const blocking = live.flatMap((hb) => {
    const reason = routeBlockReason(hb, model, version, epoch);
    return reason === undefined ? [] : [{ routerId: hb.routerId, reason }];
  });
  return { routable: live.length > 0 && blocking.length === 0, blocking };
}
