/**
 * `npm run mesh -- reset --yes [--prefix P]`: puts a demo mesh back to its seeded state. The
 * routing table is replaced from MESH_CONFIG (as `reseed` does); rollouts (records, active
 * markers, index, leader lease), the coordinator's desired versions, bulk jobs (their keys,
 * indexes, quotas) and the BullMQ queues under `<prefix>:{bull}` are removed.
 *
 * Without `--yes` it prints what it would remove and exits 1. It refuses outright unless Redis
 * is on this machine (every host of REDIS_URL, REDIS_CLUSTER_NODES or REDIS_SENTINELS is
 * 127.0.0.1, localhost or ::1) and MESH_CONFIG is the repository's demo
 * `deploy/config/mesh.yaml`, or `--prefix` names the prefix to reset.
 * Uses the Redis variables (docs/redis.md), REDIS_KEY_PREFIX and MESH_CONFIG like the apps.
 */
import { realpathSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  closeRedis,
  createRedis,
  formatHostPort,
  keyPrefix,
  loadConfig,
  redisEndpointOf,
  redisEnv,
  redisHosts,
  redisIssues,
  type RedisEndpoint,
} from '@mesh/config';
import { RoutingTableRepository } from '@mesh/routing';
import { z } from 'zod';
import { USAGE_EXIT_CODE, UsageError, parseCliArgs } from '../cli-args';
import { applyReset, describePlan, describeResult, planReset } from './mesh-reset';

export const RESET_USAGE = 'usage: npm run mesh -- reset [--yes] [--prefix <key prefix>]';

/** The seed `npm run up` uses: only a reset of it needs no `--prefix`. */
export const DEMO_SEED = join(__dirname, '..', '..', 'deploy', 'config', 'mesh.yaml');

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

export interface ResetCommandIo {
  /** Where the Redis variables and MESH_CONFIG are read; process.env by default. */
  env?: NodeJS.ProcessEnv;
  print?: (line: string) => void;
  printError?: (line: string) => void;
  /** The demo seed file; DEMO_SEED by default. */
  demoSeed?: string;
  /** Audit identity of the reseed. */
  who?: string;
}

/** True when `url` names a Redis on this machine. */
export function isLoopbackRedis(url: string): boolean {
  try {
    return LOOPBACK_HOSTS.has(new URL(url).hostname.toLowerCase());
  } catch {
    return false;
  }
}

/** True when every host the endpoint names (URL, seed nodes, Sentinels) is on this machine. */
export function isLoopbackEndpoint(endpoint: RedisEndpoint): boolean {
  if (endpoint.mode === 'standalone') return isLoopbackRedis(endpoint.url);
  const hosts = redisHosts(endpoint);
  return hosts.length > 0 && hosts.every((h) => LOOPBACK_HOSTS.has(h.toLowerCase()));
}

const MODE_VARIABLE = {
  standalone: 'REDIS_URL',
  cluster: 'REDIS_CLUSTER_NODES',
  sentinel: 'REDIS_SENTINELS',
} as const;

function canonical(file: string): string {
  try {
    return realpathSync(file);
  } catch {
    return resolve(file);
  }
}

/**
 * Why a reset must not run, or undefined when it may: without an explicit prefix, only a
 * loopback Redis seeded from the demo file is reset (a shared Redis or a real seed is not).
 */
export function resetRefusal(input: {
  redis: RedisEndpoint;
  seedFile: string;
  demoSeed: string;
  prefixGiven: boolean;
}): string | undefined {
  if (input.prefixGiven) return undefined;
  const problems: string[] = [];
  if (!isLoopbackEndpoint(input.redis)) {
    problems.push(
      `${MODE_VARIABLE[input.redis.mode]} is not on this machine (${hostsOf(input.redis)}; 127.0.0.1, localhost or ::1)`,
    );
  }
  if (canonical(input.seedFile) !== canonical(input.demoSeed)) {
    problems.push(`MESH_CONFIG (${input.seedFile}) is not the demo deploy/config/mesh.yaml`);
  }
  if (problems.length === 0) return undefined;
  return `refusing to reset: ${problems.join('; ')}. Name the prefix to reset with --prefix <p> --yes if you mean it.`;
}

/** host:port of each node the endpoint names, without credentials, for messages. */
function hostsOf(endpoint: RedisEndpoint): string {
  if (endpoint.mode === 'cluster') return endpoint.nodes.map(formatHostPort).join(',');
  if (endpoint.mode === 'sentinel') return endpoint.sentinels.map(formatHostPort).join(',');
  try {
    const u = new URL(endpoint.url);
    return u.port ? `${u.hostname}:${u.port}` : u.hostname;
  } catch {
    return 'not a URL';
  }
}

/** Runs `mesh reset`; resolves to the exit code (0 done, 1 refused, 2 usage). */
export async function runResetCommand(args: string[], io: ResetCommandIo = {}): Promise<number> {
  const print = io.print ?? console.log;
  const printError = io.printError ?? console.error;
  let flags: { yes?: boolean; prefix?: string };
  try {
    flags = parseCliArgs({
      args,
      options: { yes: { type: 'boolean' }, prefix: { type: 'string' } },
    }).values;
  } catch (err: unknown) {
    if (!(err instanceof UsageError)) throw err;
    printError(`${err.message}\n${RESET_USAGE}`);
    return USAGE_EXIT_CODE;
  }
  const config = loadConfig(
    'mesh',
    { ...redisEnv, MESH_CONFIG: z.string().default('deploy/config/mesh.yaml') },
    io.env ?? process.env,
    redisIssues,
  );
  const redis = redisEndpointOf(config);
  let prefix = config.REDIS_KEY_PREFIX;
  if (flags.prefix !== undefined) {
    const parsed = keyPrefix.safeParse(flags.prefix);
    if (!parsed.success) {
      printError(`--prefix ${parsed.error.issues[0]?.message ?? 'is not valid'}\n${RESET_USAGE}`);
      return USAGE_EXIT_CODE;
    }
    prefix = parsed.data;
  }
  const refusal = resetRefusal({
    redis,
    seedFile: config.MESH_CONFIG,
    demoSeed: io.demoSeed ?? DEMO_SEED,
    prefixGiven: flags.prefix !== undefined,
  });
  if (refusal) {
    printError(refusal);
    return 1;
  }
  const client = createRedis('commands', {
    endpoint: redis,
    name: 'mesh-cli-reset',
    commandTimeoutMs: 10_000,
  });
  try {
    const plan = await planReset(client, prefix, config.MESH_CONFIG);
    if (!flags.yes) {
      for (const line of describePlan(plan)) print(line);
      const again = flags.prefix === undefined ? '' : ` --prefix ${prefix}`;
      printError(`nothing changed: add --yes to reset (npm run mesh -- reset${again} --yes)`);
      return 1;
    }
    const repository = new RoutingTableRepository(client, { keyPrefix: prefix });
    const who = io.who ?? `mesh-cli-reset:${process.env.USER ?? 'unknown'}`;
    const result = await applyReset(client, repository, plan, who);
    for (const line of describeResult(plan, result)) print(line);
    return 0;
  } finally {
    await closeRedis(client);
  }
}
