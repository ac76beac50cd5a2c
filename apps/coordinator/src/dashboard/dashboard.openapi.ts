import { z } from 'zod';
import type { ApiDocs } from '../openapi/api-docs';
import { rolloutListSchema } from '../http/rollout-response.schema';
import {
  feedLineSchema,
  jobRowSchema,
  jobsViewSchema,
  modelsViewSchema,
  routesViewSchema,
  trafficViewSchema,
  weightsEditResultSchema,
} from './dashboard-response.schema';
import { DASHBOARD_VIEWS, type DashboardView } from './dashboard-feeds';
import { weightsEditSchema } from './route-weights-editor';

const common = { tag: 'dashboard', auth: 'admin' } as const;

const SUMMARIES: Readonly<Record<DashboardView, string>> = {
  routes: 'Routes view: the routing table, routability per version, routers, audit',
  traffic: 'Traffic view: per task and version, the last 15 minutes of signals',
  rollouts: 'Rollouts view: every rollout with its timeline',
  jobs: 'Jobs view: bulk jobs of every tenant',
  models: 'Models view: each backend’s repository index',
};

/** The dashboard's JSON API (`DashboardController`), behind the admin key like the page’s data. */
export function describeDashboardApi(docs: ApiDocs): void {
  const schemas: Readonly<Record<DashboardView, z.ZodTypeAny>> = {
    routes: docs.schema('RoutesView', routesViewSchema),
    traffic: docs.schema('TrafficView', trafficViewSchema),
    rollouts: docs.schema('RolloutList', rolloutListSchema),
    jobs: docs.schema('JobsView', jobsViewSchema),
    models: docs.schema('ModelsView', modelsViewSchema),
  };
  for (const view of DASHBOARD_VIEWS) {
    docs.operation({
      ...common,
      method: 'get',
      path: `/v1/dashboard/${view}`,
      summary: SUMMARIES[view],
      response: { description: `a snapshot of the ${view} view`, schema: schemas[view] },
      errors: ['INTERNAL'],
    });
  }
  docs.operation({
    ...common,
    method: 'get',
    path: '/v1/dashboard/{view}/stream',
    summary: 'A view’s live stream: a snapshot now, then one whenever it changes',
    description:
      'NDJSON, readable with fetch and an Authorization header. An empty line keeps an idle ' +
      'stream open; a failed read is an `error` line and the stream goes on.',
    params: z.object({ view: z.enum(DASHBOARD_VIEWS) }),
    response: {
      description: 'one FeedLine per line',
      schema: docs.schema('FeedLine', feedLineSchema),
      contentType: 'application/x-ndjson',
    },
    errors: ['INVALID_ARGUMENT'],
  });
  describeDashboardActions(docs);
}

/** What an operator changes from the dashboard: a route's weights, a job (cancel, results). */
function describeDashboardActions(docs: ApiDocs): void {
  docs.operation({
    ...common,
    method: 'put',
    path: '/v1/dashboard/routes/{tenant}/{task}/weights',
    summary: 'Edit a route’s weights at the epoch the operator saw (audited as `dashboard`)',
    description:
      'The same checks as the router’s admin API, then one compare-and-set on `expectedEpoch`. ' +
      'A route a rollout is driving is refused: the rollout would overwrite the edit.',
    params: z.object({
      tenant: z.string().describe('tenant name or *'),
      task: z.string(),
    }),
    body: docs.schema('WeightsEdit', weightsEditSchema),
    response: {
      description: 'the new epoch and the route as written',
      schema: docs.schema('WeightsEditResult', weightsEditResultSchema),
    },
    errors: [
      'INVALID_ROUTING_CONFIG',
      'NOT_FOUND',
      'ROLLOUT_CONFLICT',
      'EPOCH_CONFLICT',
      'UNKNOWN_MODEL',
      'UNKNOWN_VERSION',
      'MODEL_CONFIG_INVALID',
      'VERSION_NOT_SELECTED',
      'MANIFEST_INVALID',
      'ROUTING_TABLE_MISSING',
    ],
  });
  const jobId = z.object({ id: z.string().describe('the job id') });
  docs.operation({
    ...common,
    method: 'post',
    path: '/v1/dashboard/jobs/{id}/cancel',
    summary: 'Cancel a job of any tenant (the same transition as DELETE /v1/jobs/:id)',
    params: jobId,
    response: {
      description: 'the job after the cancel',
      schema: docs.schema('JobRow', jobRowSchema),
    },
    errors: ['JOB_NOT_FOUND'],
  });
  docs.operation({
    ...common,
    method: 'get',
    path: '/v1/dashboard/jobs/{id}/results',
    summary: 'Download the results written so far, in input order',
    params: jobId,
    response: {
      description: 'one result line per item (as the router’s GET /v1/jobs/:id/results)',
      schema: z.string().describe('NDJSON'),
      contentType: 'application/x-ndjson',
    },
    errors: ['JOB_NOT_FOUND'],
  });
}
