import { OPERATOR_COMMANDS } from '@mesh/rollout-contract';
import { z } from 'zod';
import type { ApiDocs } from '../openapi/api-docs';
import { planSchema } from '../rollout/rollout-plan.schema';
import { rolloutListSchema, rolloutViewSchema } from './rollout-response.schema';

const common = { tag: 'rollouts', auth: 'admin' } as const;
const rolloutId = z.string().describe('the id answered by POST /v1/rollouts');

/** The rollout API (`RolloutsController`); operator guide: docs/rollouts.md. */
export function describeRolloutsApi(docs: ApiDocs): void {
  const view = docs.schema('RolloutView', rolloutViewSchema);
  docs.operation({
    ...common,
    method: 'post',
    path: '/v1/rollouts',
    summary: 'Schedule a rollout of a route to a new model version',
    description:
      'The plan is checked whole (every problem in one 400 INVALID_PLAN), then against the ' +
      'model repository and the routing table (422 PLAN_REJECTED), and refused when the new ' +
      "version's footprint exceeds every backend's memory budget (422 MODEL_TOO_LARGE). One " +
      'unfinished rollout per (tenant, task). The leader carries it out: load (where the ' +
      'placer puts it under budgets, else everywhere), window and low load, warm-up, ' +
      'shadow, canary steps with gates, bake, promote or roll back, drain.',
    body: docs.schema('RolloutPlan', planSchema),
    response: { status: 201, description: 'the rollout, pending', schema: view },
    errors: [
      'INVALID_PLAN',
      'PLAN_REJECTED',
      'MODEL_TOO_LARGE',
      'ROLLOUT_CONFLICT',
      'ROUTING_TABLE_MISSING',
    ],
  });
  docs.operation({
    ...common,
    method: 'get',
    path: '/v1/rollouts',
    summary: 'The newest 100 rollouts, newest first, each with its timeline',
    response: {
      description: 'the rollouts',
      schema: docs.schema('RolloutList', rolloutListSchema),
    },
    errors: [],
  });
  docs.operation({
    ...common,
    method: 'get',
    path: '/v1/rollouts/{id}',
    summary: 'One rollout: state, step, weights and timeline',
    params: z.object({ id: rolloutId }),
    response: { description: 'the rollout', schema: view },
    errors: ['ROLLOUT_NOT_FOUND'],
  });
  describeRolloutCommands(docs, view);
}

/** What an operator does to one rollout: undo it, or pause, resume, abort or promote it. */
function describeRolloutCommands(docs: ApiDocs, view: typeof rolloutViewSchema): void {
  docs.operation({
    ...common,
    method: 'post',
    path: '/v1/rollouts/{id}/undo',
    summary: 'Undo a completed rollout: a new rollout back to the weights it started from',
    description:
      'The new rollout (its `undoOf` names this one) loads every version it brings back on ' +
      'every backend, waits until every router can route them, then restores the previous ' +
      'weights in one step and retires what they no longer name. 409 ROUTE_CHANGED when the ' +
      'route was edited after the rollout completed, unless `force=true`; 409 ROLLOUT_CONFLICT ' +
      'while another rollout of the route runs; 409 INVALID_COMMAND unless the rollout completed; ' +
      '422 MODEL_TOO_LARGE when a version it brings back exceeds every backend budget.',
    params: z.object({ id: rolloutId }),
    query: z.object({
      force: z
        .enum(['true', 'false'])
        .optional()
        .describe('undo even though the route was edited after the rollout completed'),
    }),
    response: { status: 201, description: 'the undo rollout, pending', schema: view },
    errors: [
      'ROLLOUT_NOT_FOUND',
      'INVALID_COMMAND',
      'ROUTE_CHANGED',
      'ROLLOUT_CONFLICT',
      'PLAN_REJECTED',
      'MODEL_TOO_LARGE',
    ],
  });
  docs.operation({
    ...common,
    method: 'post',
    path: '/v1/rollouts/{id}/{command}',
    summary: 'Pause, resume, abort or promote a rollout (undo: see /v1/rollouts/{id}/undo)',
    description:
      'Accepted (202) and queued on the rollout; the leader carries it out at its next tick. ' +
      'Which commands a state accepts is `COMMANDS_ACCEPTED` (docs/rollouts.md); the others ' +
      'answer 409 INVALID_COMMAND.',
    params: z.object({
      id: rolloutId,
      command: z.enum(OPERATOR_COMMANDS),
    }),
    response: { status: 202, description: 'the rollout with its pending command', schema: view },
    errors: ['INVALID_ARGUMENT', 'ROLLOUT_NOT_FOUND', 'INVALID_COMMAND', 'REVISION_CONFLICT'],
  });
}
