import { existsSync, statSync } from 'node:fs';
import {
  commonEnv,
  ConfigError,
  loadConfig,
  port,
  positiveInt,
  redisEnv,
  redisIssues,
} from '@mesh/config';
import { jobsEnv } from '@mesh/jobs';
import { kserveClientEnv, kserveClientIssues } from '@mesh/kserve';
import { z } from 'zod';
import { parseBackendBudgets, type BackendBudgets } from './backend-budgets';

/** `KSERVE_BACKEND_BUDGETS_MB`, parsed; a bad entry is named in the boot error. */
const backendBudgets = z
  .string()
  .default('')
  .transform((raw, ctx): BackendBudgets => {
    const parsed = parseBackendBudgets(raw);
    if ('problem' in parsed) {
      ctx.addIssue({ code: z.ZodIssueCode.custom, message: parsed.problem });
      return z.NEVER;
    }
    return parsed;
  });

const coordinatorEnv = {
  ...commonEnv,
  ...redisEnv,
  ...kserveClientEnv,
  COORDINATOR_PORT: port(8090),
  /** Empty disables the rollout API (every call answers 403). */
  ADMIN_API_KEY: z.string().default(''),
  MODEL_REPOSITORY: z
    .string()
    .min(1)
    .default('./model_repository')
    .refine((dir) => existsSync(dir) && statSync(dir).isDirectory(), 'must be a directory'),
  /** This replica's name in the leader lease (default: host name and pid). */
  COORDINATOR_ID: z.string().max(128).default(''),
  /** How often the leader advances each rollout (and renews its lease). */
  COORDINATOR_TICK_MS: positiveInt(1000, 60_000),
  /** Lease lifetime; another replica takes over this long after the leader stops renewing. */
  COORDINATOR_LEASE_MS: positiveInt(10_000, 600_000),
  /** Window over which the low-load detector measures the task's request rate. */
  COORDINATOR_LOAD_SAMPLE_MS: positiveInt(10_000),
  /** A version not READY on every backend by then fails its rollout. */
  COORDINATOR_LOAD_TIMEOUT_MS: positiveInt(300_000),
  /** How often backends are compared with the desired versions. */
  COORDINATOR_RECONCILE_MS: positiveInt(5_000),
  /** Deadline of a repository load (a model load can take a while on Triton). */
  COORDINATOR_LOAD_DEADLINE_MS: positiveInt(120_000),
  /** A copy the placer loaded stays at least this long (no scale-down, eviction or retire). */
  PLACEMENT_MIN_RESIDENCY_MS: positiveInt(60_000),
  /** Requests per second one copy of a version should carry; more earn more copies. */
  PLACEMENT_RATE_PER_COPY: z.coerce
    .number({ invalid_type_error: 'must be a number' })
    .positive('must be above 0')
    .default(50),
  /** Window over which the placer measures each version's request rate. */
  PLACEMENT_RATE_WINDOW_MS: positiveInt(30_000),
  /** Memory budgets of backends without an advertised one (config wins): `addr=MB,...` or MB. */
  KSERVE_BACKEND_BUDGETS_MB: backendBudgets,
  /** The dashboard lists jobs over the same retention as the router and workers. */
  JOBS_RETENTION_SECONDS: jobsEnv.JOBS_RETENTION_SECONDS,
};

export type CoordinatorConfig = ReturnType<typeof loadCoordinatorConfig>;

export function loadCoordinatorConfig(env: NodeJS.ProcessEnv = process.env) {
  const config = loadConfig('coordinator', coordinatorEnv, env, (c) => [
    ...redisIssues(c),
    ...kserveClientIssues(c),
    ...budgetIssues(c.KSERVE_BACKEND_BUDGETS_MB, c.KSERVE_ENDPOINTS),
  ]);
  // A lease renewed less than twice per lifetime would lapse under a slow tick.
  if (config.COORDINATOR_LEASE_MS < 2 * config.COORDINATOR_TICK_MS) {
    throw new ConfigError('coordinator', [
      {
        variable: 'COORDINATOR_LEASE_MS',
        reason: `must be at least twice COORDINATOR_TICK_MS (${config.COORDINATOR_TICK_MS}) (got ${config.COORDINATOR_LEASE_MS})`,
      },
    ]);
  }
  return config;
}

/** A budget for an address KSERVE_ENDPOINTS does not list is a typo, not a backend. */
function budgetIssues(budgets: BackendBudgets, endpoints: readonly string[]) {
  return [...budgets.byAddress.keys()]
    .filter((address) => !endpoints.includes(address))
    .map((address) => ({
      variable: 'KSERVE_BACKEND_BUDGETS_MB',
      reason: `names '${address}', which KSERVE_ENDPOINTS does not list (${endpoints.join(', ')})`,
    }));
}
