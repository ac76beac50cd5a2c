import { JOB_STATES } from '@mesh/jobs';
import { routeSchema } from '@mesh/routing';
import { z } from 'zod';
import { DASHBOARD_VIEWS } from './dashboard-feeds';
import type { JobRow, JobsView } from './jobs-view';
import type { ModelsView } from './models-view';
import type { WeightsEditResult } from './route-weights-editor';
import type { RoutesView } from './routes-view';
import type { TrafficView } from './traffic-view';

/**
 * The JSON answers of the dashboard's API (`/v1/dashboard`), for the OpenAPI document. The
 * assignments at the end stop the build if a view drifts from its documented shape.
 */
const epoch = z.number().int().describe('routing table epoch');

export const auditEntrySchema = z.object({
  epoch,
  who: z.string().describe('the actor: dashboard, a rollout, the admin API’s ADMIN_ACTOR …'),
  when: z.string().describe('ISO-8601'),
  action: z.string().describe('seed, reseed, route.upsert, route.delete, tenant.upsert …'),
  target: z.string().optional().describe('tenant/task of a route, or a tenant name'),
  before: z.unknown(),
  after: z.unknown(),
});

export const routesViewSchema = z.object({
  epoch: epoch.nullable().describe('null while the table was never seeded'),
  routers: z.array(
    z.object({
      routerId: z.string(),
      epoch: epoch.describe('the epoch this router has applied'),
      at: z.number().int().describe('unix ms of its last heartbeat (its own clock)'),
      inFlight: z.number().int(),
    }),
  ),
  routes: z.array(
    z.object({
      tenant: z.string(),
      task: z.string(),
      model: z.string(),
      versions: z.array(
        z.object({
          version: z.number().int(),
          weight: z.number(),
          routable: z.boolean().describe('at least one live router and none blocking'),
          blocking: z.array(z.object({ routerId: z.string(), reason: z.string() })),
        }),
      ),
      shadow: z.object({ version: z.number().int(), percent: z.number().optional() }).optional(),
      activeRollout: z.string().optional().describe('the rollout driving this route, if any'),
      audit: z.array(auditEntrySchema).describe('newest entries naming this route'),
    }),
  ),
  audit: z.array(auditEntrySchema).describe('newest entries of the whole table'),
});

const signalsSchema = z.object({
  requests: z.number().int(),
  errors: z.number().int().describe('server-side failures (5xx classes)'),
  errorsByClass: z.record(z.number().int()).describe('every non-ok outcome by code'),
  errorRate: z.number().describe('errors / requests, rounded for people'),
  ratePerSecond: z.number(),
  p50Ms: z.number().nullable().describe('null without successful requests'),
  p99Ms: z.number().nullable(),
});

export const trafficViewSchema = z.object({
  fromMs: z.number().int(),
  toMs: z.number().int().describe('end of the last complete signal bucket'),
  stepMs: z.number().int(),
  times: z.array(z.number().int()).describe('start (unix ms) of each step of the series'),
  rows: z.array(
    z.object({
      task: z.string(),
      model: z.string(),
      version: z.number().int(),
      retired: z
        .boolean()
        .describe(
          'no longer in the route (e.g. a rollout retired it) but had traffic in the window',
        ),
      summary: signalsSchema.describe('the whole window, as a rollout gate reads it'),
      series: z.object({
        ratePerSecond: z.array(z.number()),
        errorRate: z.array(z.number()),
        p50Ms: z.array(z.number().nullable()),
        p99Ms: z.array(z.number().nullable()),
      }),
    }),
  ),
});

export const jobRowSchema = z.object({
  id: z.string(),
  tenant: z.string(),
  task: z.string(),
  state: z.enum(JOB_STATES),
  reason: z.string().optional(),
  total: z.number().int(),
  processed: z.number().int(),
  succeeded: z.number().int(),
  failedItems: z.number().int(),
  itemsPerSecond: z.number(),
  etaSeconds: z.number().int().nullable(),
  model: z.string(),
  version: z.number().int(),
  pipeline: z.string(),
  createdAt: z.string(),
  startedAt: z.string().nullable(),
  finishedAt: z.string().nullable(),
});

export const jobsViewSchema = z.object({
  jobs: z.array(jobRowSchema).describe('the newest 100 jobs of every tenant'),
});

export const modelsViewSchema = z.object({
  backends: z.array(
    z.object({
      address: z.string(),
      error: z.string().optional().describe('set when the backend did not answer'),
      models: z.array(
        z.object({
          model: z.string(),
          version: z.string(),
          state: z.string().describe('READY, UNAVAILABLE, LOADING …'),
          reason: z.string(),
          modelSha256: z.string().optional().describe('what a READY version reports'),
        }),
      ),
      ledger: z
        .object({
          budgetMb: z.number().nullable().describe('null: no budget'),
          usedMb: z.number(),
          resident: z.array(
            z.object({
              model: z.string(),
              version: z.number().int(),
              mb: z.number(),
              since: z.number().describe('unix ms it became resident here'),
              lastUsedAt: z.number().describe('unix ms of its last request anywhere (0: never)'),
            }),
          ),
          at: z.number().describe('unix ms of the placer pass that counted it'),
        })
        .optional()
        .describe("the placer's bookkeeping of this backend"),
    }),
  ),
  decisions: z
    .array(
      z.object({
        at: z.number(),
        action: z.enum(['load', 'unload']),
        model: z.string(),
        version: z.number().int(),
        backend: z.string(),
        reason: z.string(),
        mb: z.number(),
        error: z.string().optional(),
      }),
    )
    .describe('the newest placement decisions, newest first'),
});

export const weightsEditResultSchema = z.object({ epoch, route: routeSchema });

/** One NDJSON line of a view's stream: a new snapshot, or why the last read failed. */
export const feedLineSchema = z.object({
  view: z.enum(DASHBOARD_VIEWS),
  at: z.number().int().describe('unix ms of the read'),
  data: z.unknown().optional().describe('the view, as its snapshot endpoint answers it'),
  error: z.string().optional().describe('instead of data: the data shown is stale'),
});

// Compile-time agreement between what is sent and what is documented.
const sentRoutes = (v: RoutesView): z.input<typeof routesViewSchema> => v;
const sentTraffic = (v: TrafficView): z.input<typeof trafficViewSchema> => v;
const sentJob = (v: JobRow): z.input<typeof jobRowSchema> => v;
const sentJobs = (v: JobsView): z.input<typeof jobsViewSchema> => v;
const sentModels = (v: ModelsView): z.input<typeof modelsViewSchema> => v;
const sentEdit = (v: WeightsEditResult): z.input<typeof weightsEditResultSchema> => v;
export const VIEWS_MATCH_SCHEMAS = [
  sentRoutes,
  sentTraffic,
  sentJob,
  sentJobs,
  sentModels,
  sentEdit,
] as const;
