/**
 * Operator commands against the routing table in Redis:
 *   npm run mesh -- reseed        replace the stored table with MESH_CONFIG (audited)
 *   npm run mesh -- reset --yes   back to the seeded demo: reseed, drop rollouts, desired
 *                                 versions, bulk jobs and queues (see reset-cli/)
 *   npm run mesh -- show          print the current table and epoch
 *   npm run mesh -- audit [n]     print the newest n audit entries (default 20)
 *   npm run mesh -- rollout …     the coordinator's rollout API (see rollout-cli/)
 *   npm run mesh -- model add|check …   bring your own model (see model-cli/; no Redis)
 *   npm run mesh -- job ...        bulk jobs through the router API (scripts/job-cli.ts)
 * Uses the Redis variables (docs/redis.md), REDIS_KEY_PREFIX and MESH_CONFIG like the apps.
 */
import {
  closeRedis,
  createRedis,
  loadConfig,
  redisEndpointOf,
  redisEnv,
  redisIssues,
} from '@mesh/config';
import { RoutingTableRepository, describeSeed, seedFromMeshConfig } from '@mesh/routing';
import { z } from 'zod';
import { USAGE_EXIT_CODE, UsageError, parseCliArgs } from './cli-args';
import { runJobCommand } from './job-cli';
import { runModelCommand } from './model-cli/model-cli.command';
import { runResetCommand } from './reset-cli/reset-cli.command';
import { rolloutCommand } from './rollout-cli/rollout-cli.command';

export const MESH_USAGE =
  'usage: npm run mesh -- reseed | reset [--yes] [--prefix P] | show | audit [n] | model add|check ... | rollout ... | job ...';

/** The newest audit entries `audit` prints without a count (or with one that is not a count). */
const AUDIT_DEFAULT = 20;

/** A command on the routing table itself (the others have CLIs of their own). */
export type TableCommand = { command: 'reseed' | 'show' } | { command: 'audit'; count: number };

/**
 * `reseed`, `show` or `audit [n]`; undefined for another command, a UsageError for an option or
 * an argument the command does not take.
 */
export function parseTableCommand(args: string[]): TableCommand | undefined {
  const [command, ...rest] = args;
  if (command === 'reseed' || command === 'show') {
    parseCliArgs({ args: rest });
    return { command };
  }
  if (command !== 'audit') return undefined;
  const [n, ...extra] = parseCliArgs({ args: rest, allowPositionals: true }).positionals;
  if (extra.length > 0) throw new UsageError(`Unexpected argument '${extra[0]}'`);
  const count = Number(n ?? AUDIT_DEFAULT);
  return { command, count: Number.isInteger(count) && count > 0 ? count : AUDIT_DEFAULT };
}

async function main(argv: string[]): Promise<number> {
  const [first, ...rest] = argv;
  if (first === 'model') return runModelCommand(rest);
  if (first === 'rollout') return rolloutCommand(rest);
  if (first === 'job') return runJobCommand(rest);
  if (first === 'reset') return runResetCommand(rest);
  let table: TableCommand | undefined;
  try {
    table = parseTableCommand(argv);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    console.error(`${err.message}\n${MESH_USAGE}`);
    return USAGE_EXIT_CODE;
  }
  if (!table) {
    console.error(MESH_USAGE);
    return USAGE_EXIT_CODE;
  }
  const config = loadConfig(
    'mesh',
    { ...redisEnv, MESH_CONFIG: z.string().default('deploy/config/mesh.yaml') },
    process.env,
    redisIssues,
  );
  const redis = createRedis('commands', { endpoint: redisEndpointOf(config), name: 'mesh-cli' });
  const repo = new RoutingTableRepository(redis, { keyPrefix: config.REDIS_KEY_PREFIX });
  try {
    switch (table.command) {
      case 'reseed': {
        const result = await seedFromMeshConfig(repo, config.MESH_CONFIG, {
          who: `mesh-cli:${process.env.USER ?? 'unknown'}`,
          force: true,
        });
        console.log(describeSeed(result, config.MESH_CONFIG, { force: true }));
        return 0;
      }
      case 'show': {
        console.log(JSON.stringify(await repo.load(), null, 2));
        return 0;
      }
      case 'audit': {
        for (const entry of await repo.auditLog(table.count)) console.log(JSON.stringify(entry));
        return 0;
      }
    }
  } finally {
    await closeRedis(redis);
  }
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err: unknown) => {
      console.error(err instanceof Error ? err.message : String(err));
      process.exit(1);
    },
  );
}
