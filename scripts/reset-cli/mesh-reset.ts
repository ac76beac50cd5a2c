/**
 * What `npm run mesh -- reset` removes and rewrites under one key prefix, and the doing of it.
 * Keys are found with SCAN MATCH on the prefix's patterns (never KEYS), on every primary of a
 * Redis Cluster, and deleted in batches, one DEL per key, so the same code works when the keys
 * sit in different Cluster slots (pipelined on one server; sent at once, each to its node, on a
 * Cluster, whose pipelines must stay on one node).
 */
import { isCluster, primariesOf, type RedisClient } from '@mesh/config';
import { JobKeys, bullPrefix } from '@mesh/jobs';
import {
  describeSeed,
  readMeshConfigFile,
  routingKeys,
  type RoutingTableData,
  type RoutingTableRepository,
} from '@mesh/routing';
import { RolloutKeys } from '@mesh/rollout-contract';

/** The kinds of state a reset removes, in the order it removes them. */
export const RESET_KINDS = [
  'rollouts',
  'desired versions',
  'bulk jobs',
  'job indexes',
  'queues',
] as const;
export type ResetKind = (typeof RESET_KINDS)[number];

/** One place keys of a kind live: a SCAN MATCH pattern or one exact key. */
type KeySource = { match: string } | { key: string };

/** Keys per SCAN page and DELs per pipeline. */
const BATCH = 500;

/** Where each kind lives under `prefix`, from the owners' key helpers. */
export function resetSources(prefix: string): Record<ResetKind, KeySource[]> {
  const rollouts = new RolloutKeys(prefix);
  const jobs = new JobKeys(prefix);
  return {
    rollouts: [
      { match: rollouts.recordPattern() },
      { match: rollouts.activePattern() },
      { key: rollouts.index() },
      // The leader lease only: the fencing counter must keep increasing across leaders.
      { key: routingKeys(prefix).leaderLease },
    ],
    'desired versions': [{ key: rollouts.desired() }],
    'bulk jobs': [{ match: jobs.jobPattern() }],
    'job indexes': [{ match: jobs.indexPattern() }],
    queues: [{ match: `${bullPrefix(prefix)}:*` }],
  };
}

/** Every key of each kind that exists now (SCAN may repeat a key; these are distinct). */
export async function findResetKeys(
  redis: RedisClient,
  prefix: string,
): Promise<Record<ResetKind, string[]>> {
  const sources = resetSources(prefix);
  const found = {} as Record<ResetKind, string[]>;
  for (const kind of RESET_KINDS) {
    const keys = new Set<string>();
    for (const source of sources[kind]) {
      if ('key' in source) {
        if ((await redis.exists(source.key)) === 1) keys.add(source.key);
        continue;
      }
      for (const node of await primariesOf(redis)) {
        let cursor = '0';
        do {
          const [next, page] = await node.scan(cursor, 'MATCH', source.match, 'COUNT', BATCH);
          for (const key of page) keys.add(key);
          cursor = next;
        } while (cursor !== '0');
      }
    }
    found[kind] = [...keys].sort();
  }
  return found;
}

/** Deletes `keys` in pipelines of BATCH; resolves to how many existed. */
async function deleteKeys(redis: RedisClient, keys: readonly string[]): Promise<number> {
  let deleted = 0;
  for (let i = 0; i < keys.length; i += BATCH) {
    if (isCluster(redis)) {
      const counts = await Promise.all(keys.slice(i, i + BATCH).map((key) => redis.del(key)));
      deleted += counts.reduce((a, b) => a + b, 0);
      continue;
    }
    const pipeline = redis.pipeline();
    for (const key of keys.slice(i, i + BATCH)) pipeline.del(key);
    for (const [err, n] of (await pipeline.exec()) ?? []) {
      if (err) throw err;
      deleted += Number(n);
    }
  }
  return deleted;
}

/**
 * Versions each model's seeded routes name (weights and shadows), as the coordinator's serving
 * set counts them (`RolloutRoute.servingSet`).
 */
export function seededVersions(data: RoutingTableData): Map<string, number[]> {
  const byModel = new Map<string, Set<number>>();
  for (const route of data.routes) {
    const set = byModel.get(route.model) ?? new Set<number>();
    for (const v of route.versions) set.add(v.version);
    if (route.shadow) set.add(route.shadow.version);
    byModel.set(route.model, set);
  }
  return new Map([...byModel].map(([m, s]) => [m, [...s].sort((a, b) => a - b)]));
}

export interface ResetPlan {
  prefix: string;
  seedFile: string;
  /** The validated seed. */
  seed: RoutingTableData;
  keys: Record<ResetKind, string[]>;
  /** Models a rollout gave desired versions, with the versions their seeded routes name. */
  desiredAfter: Map<string, number[]>;
}

/**
 * Reads the seed (a broken file refuses before anything is touched) and finds what a reset
 * would remove. The desired versions are not simply dropped: the coordinator's reconciler only
 * visits models that have an entry, so with none it would never reload a version a rollout
 * retired. A model a rollout touched gets the versions its seeded routes name instead, which
 * the reconciler loads again on every backend that lacks them.
 */
export async function planReset(
  redis: RedisClient,
  prefix: string,
  seedFile: string,
): Promise<ResetPlan> {
  const seed = await readMeshConfigFile(seedFile);
  const keys = await findResetKeys(redis, prefix);
  const touched = Object.keys(await redis.hgetall(new RolloutKeys(prefix).desired()));
  const seeded = seededVersions(seed);
  const desiredAfter = new Map<string, number[]>();
  for (const model of touched.sort()) {
    const versions = seeded.get(model);
    if (versions) desiredAfter.set(model, versions);
  }
  return { prefix, seedFile, seed, keys, desiredAfter };
}

export interface ResetResult {
  /** Keys deleted per kind. */
  deleted: Record<ResetKind, number>;
  /** The routing table's epoch after the reseed. */
  epoch: number;
  desiredAfter: Map<string, number[]>;
}

/** Carries out a plan: removes its keys, reseeds the table, writes the seeded desired versions. */
export async function applyReset(
  redis: RedisClient,
  repository: RoutingTableRepository,
  plan: ResetPlan,
  who: string,
): Promise<ResetResult> {
  // Scanned again: keys made since the plan was read (a rollout saved, a chunk written) go too.
  const keys = await findResetKeys(redis, plan.prefix);
  const deleted = {} as Record<ResetKind, number>;
  for (const kind of RESET_KINDS) deleted[kind] = await deleteKeys(redis, keys[kind]);
  const { epoch } = await repository.reseed(plan.seed, who);
  const desiredKey = new RolloutKeys(plan.prefix).desired();
  for (const [model, versions] of plan.desiredAfter) {
    await redis.hset(desiredKey, model, JSON.stringify(versions));
  }
  return { deleted, epoch, desiredAfter: plan.desiredAfter };
}

const DETAILS: Record<ResetKind, string> = {
  rollouts: 'records, active markers, index, leader lease',
  'desired versions': "the coordinator's per-model versions",
  'bulk jobs': 'metadata, items and results',
  'job indexes': 'tenant and admin indexes, quotas, idempotency keys',
  queues: 'BullMQ',
};

function versionsLine(desired: Map<string, number[]>): string[] {
  return [...desired].map(
    ([model, versions]) =>
      `  desired versions of ${model} set to [${versions.join(', ')}] (the seeded routes; the coordinator reloads them)`,
  );
}

/** What `reset` without `--yes` prints: per kind, what would go. */
export function describePlan(plan: ResetPlan): string[] {
  return [
    `would reset key prefix "${plan.prefix}":`,
    `  routing table: replaced from ${plan.seedFile} (${plan.seed.tenants.length} tenant(s), ${plan.seed.routes.length} route(s))`,
    ...RESET_KINDS.map(
      (kind) =>
        `  ${kind}: ${plan.keys[kind].length} key(s) would be removed (${kind === 'queues' ? `${DETAILS[kind]}, under ${bullPrefix(plan.prefix)}` : DETAILS[kind]})`,
    ),
    ...versionsLine(plan.desiredAfter).map((l) => l.replace(' set to ', ' would be set to ')),
  ];
}

/** What a done reset prints: per kind, what went. */
export function describeResult(plan: ResetPlan, result: ResetResult): string[] {
  return [
    `reset key prefix "${plan.prefix}":`,
    `  ${describeSeed({ seeded: true, epoch: result.epoch }, plan.seedFile, { force: true })}`,
    ...RESET_KINDS.map(
      (kind) =>
        `  ${kind}: ${result.deleted[kind]} key(s) removed (${kind === 'queues' ? `${DETAILS[kind]}, under ${bullPrefix(plan.prefix)}` : DETAILS[kind]})`,
    ),
    ...versionsLine(result.desiredAfter),
  ];
}
