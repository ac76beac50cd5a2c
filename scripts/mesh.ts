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
import { runJobCommand } from './job-cli';
import { runModelCommand } from './model-cli/model-cli.command';
import { runResetCommand } from './reset-cli/reset-cli.command';
import { rolloutCommand } from './rollout-cli/rollout-cli.command';

const USAGE =
  'usage: npm run mesh -- reseed | reset [--yes] [--prefix P] | show | audit [n] | model add|check ... | rollout ... | job ...';

async function main(): Promise<number> {
  const [command, arg] = process.argv.slice(2);
  if (command === 'model') return runModelCommand(process.argv.slice(3));
  if (command === 'rollout') return rolloutCommand(process.argv.slice(3));
  if (command === 'job') return runJobCommand(process.argv.slice(3));
  if (command === 'reset') return runResetCommand(process.argv.slice(3));
  const config = loadConfig(
    'mesh',
    { ...redisEnv, MESH_CONFIG: z.string().default('deploy/config/mesh.yaml') },
    process.env,
    redisIssues,
  );
  const redis = createRedis('commands', { endpoint: redisEndpointOf(config), name: 'mesh-cli' });
  const repo = new RoutingTableRepository(redis, { keyPrefix: config.REDIS_KEY_PREFIX });
  try {
    switch (command) {
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
        const n = Number(arg ?? 20);
        for (const entry of await repo.auditLog(Number.isInteger(n) && n > 0 ? n : 20)) {
          console.log(JSON.stringify(entry));
        }
        return 0;
      }
      default:
        console.error(USAGE);
        return 2;
    }
  } finally {
    await closeRedis(redis);
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err instanceof Error ? err.message : String(err));
    process.exit(1);
  },
);
