import type { RedisClient } from '@mesh/config';
import { PlacementDemand, versionKey } from '@mesh/placement';
import type { Route } from '@mesh/routing';
import type { RouterHeartbeat, VersionRequests } from '@mesh/signals';
import pino from 'pino';
import type { BackendSurvey } from '../rollout/adapters/kserve-backend-fleet';
import { PlacementPolicy } from '../placement/placement-policy';
import { PlacementSnapshotReader } from '../placement/placement-snapshot-reader';
import { PlacementMetrics } from '../placement/placement.metrics';
import type { PlacementBackends, PlacementSources } from '../placement/placement-ports';
import { PlacementRepository } from '../placement/placement.repository';
import { Placer } from '../placement/placer';
import type { BackendReadiness } from '../rollout/rollout-ports';
import type { RolloutRecord } from '../rollout/rollout.types';
import { Registry } from 'prom-client';
import { FakeClock } from './fake-mesh';

interface FakeHost {
  alive: boolean;
  advertisedMb?: number;
  models: Map<string, number[]>;
}

/** Backends in memory: repository calls are recorded and change what the index reports. */
export class FakeBackends implements PlacementBackends {
  hosts = new Map<string, FakeHost>();
  calls: string[] = [];
  /** Backends whose repository calls fail. */
  failing = new Set<string>();
  /** `model@version` → MB a backend reports after loading it. */
  reported = new Map<string, number>();

  constructor(addresses: string[], advertisedMb?: number) {
    for (const a of addresses) this.hosts.set(a, { alive: true, advertisedMb, models: new Map() });
  }

  host(address: string): FakeHost {
    const h = this.hosts.get(address);
    if (!h) throw new Error(`no fake backend ${address}`);
    return h;
  }

  async survey(): Promise<BackendSurvey[]> {
    return [...this.hosts].map(([address, h]) =>
      h.alive
        ? {
            address,
            alive: true,
            ...(h.advertisedMb !== undefined ? { advertisedBudgetMb: h.advertisedMb } : {}),
            ready: [...h.models].flatMap(([model, vs]) =>
              vs.map((version) => ({ model, version })),
            ),
          }
        : { address, alive: false, problem: '14 UNAVAILABLE', ready: [] },
    );
  }

  async serve(model: string, versions: number[], addresses: string[]): Promise<void> {
    for (const a of addresses) {
      this.calls.push(`serve ${a} ${model} [${versions.join(',')}]`);
      if (this.failing.has(a)) throw new Error(`load failed on ${a}: deadline exceeded`);
      this.host(a).models.set(model, [...versions]);
    }
  }

  async unload(model: string, address: string): Promise<void> {
    this.calls.push(`unload ${address} ${model}`);
    if (this.failing.has(address)) throw new Error(`unload failed on ${address}`);
    this.host(address).models.delete(model);
  }

  async readiness(
    model: string,
    version: number,
    addresses?: readonly string[],
  ): Promise<BackendReadiness[]> {
    return [...this.hosts]
      .filter(([a]) => !addresses || addresses.includes(a))
      .map(([address, h]) =>
        h.alive && (h.models.get(model) ?? []).includes(version)
          ? { address, ready: true, sha: `sha-${model}-${version}` }
          : { address, ready: false, problem: 'not loaded' },
      );
  }

  async reportedMb(model: string, version: number): Promise<number | undefined> {
    return this.reported.get(versionKey(model, version));
  }
}

/** What a pass reads, settable per test; demands go through Redis (PlacementDemand). */
export class FakeSources implements PlacementSources {
  routeList: Route[] = [];
  desiredMap = new Map<string, number[]>();
  rollouts: RolloutRecord[] = [];
  pins: { model: string; version: number }[] = [];
  traffic: VersionRequests[] = [];
  live: RouterHeartbeat[] = [];
  /** `model@version` → declared MB (default 100). */
  sizes = new Map<string, number>();

  constructor(private readonly pending: PlacementDemand) {}

  routes = async () => this.routeList;
  desired = async () => new Map(this.desiredMap);
  activeRollouts = async () => this.rollouts;
  pinned = async () => this.pins;
  demand = () => this.pending.pending();
  requests = async () => this.traffic;
  heartbeats = async () => this.live;
  footprint = async (model: string, version: number) => ({
    mb: this.sizes.get(versionKey(model, version)) ?? 100,
  });
  expectedSha = async (model: string, version: number) => `sha-${model}-${version}`;
}

export interface PlacerRig {
  placer: Placer;
  backends: FakeBackends;
  sources: FakeSources;
  demand: PlacementDemand;
  repository: PlacementRepository;
  clock: FakeClock;
  registry: Registry;
  lines: Record<string, unknown>[];
}

/** A placer over fake backends and sources, with its state in real Redis under `prefix`. */
export function placerRig(
  redis: RedisClient,
  prefix: string,
  options: {
    addresses?: string[];
    budgetMb?: (address: string) => number | null;
    now?: number;
  } = {},
): PlacerRig {
  const backends = new FakeBackends(options.addresses ?? ['host-a:8001', 'host-b:8001']);
  const demand = new PlacementDemand(redis, prefix);
  const sources = new FakeSources(demand);
  const repository = new PlacementRepository(redis, prefix);
  const clock = new FakeClock(options.now ?? 1_800_000_000_000);
  const registry = new Registry();
  const lines: Record<string, unknown>[] = [];
  const logger = pino(
    { level: 'info' },
    { write: (l: string) => void lines.push(JSON.parse(l) as Record<string, unknown>) },
  );
  const budgetOf = options.budgetMb ?? (() => null);
  const placer = new Placer({
    reader: new PlacementSnapshotReader(
      sources,
      backends,
      repository,
      (a, adv) => budgetOf(a) ?? adv ?? null,
      30_000,
    ),
    policy: new PlacementPolicy({ minResidencyMs: 60_000, ratePerCopy: 50 }),
    backends,
    sources,
    repository,
    demand,
    metrics: new PlacementMetrics(registry),
    clock,
    logger,
  });
  return { placer, backends, sources, demand, repository, clock, registry, lines };
}
