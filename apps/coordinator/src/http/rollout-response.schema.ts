import {
  OPERATOR_COMMANDS,
  ROLLOUT_STATES,
  type RolloutView,
  type TimelineEntry,
} from '@mesh/rollout-contract';
import { z } from 'zod';
import { planSchema } from '../rollout/rollout-plan.schema';

/**
 * The JSON answers of the rollout API, for the OpenAPI document. The assignments at the end
 * stop the build if a view the service sends drifts from its documented shape.
 */
const state = z.enum(ROLLOUT_STATES);

export const timelineEntrySchema = z.object({
  at: z.string().describe('ISO-8601 time of the transition (the coordinator’s clock)'),
  from: state,
  to: state,
  step: z.number().int().describe('1-based canary step after the transition (0 before the first)'),
  reason: z.string().describe('why, with the numbers that decided it'),
  metrics: z
    .record(z.union([z.number(), z.string(), z.boolean(), z.null()]))
    .optional()
    .describe('the signals, epochs and counts behind the transition, rounded for people'),
});

const weightsSchema = z.array(
  z.object({
    version: z.number().int(),
    weight: z.number().describe('percent of the route’s traffic (0–100)'),
  }),
);

export const rolloutViewSchema = z.object({
  id: z.string().describe('e.g. ro-20261201-1a2b3c4d'),
  plan: planSchema,
  state,
  step: z.number().int().describe('current canary step (0 before the first)'),
  weights: weightsSchema.describe('the route’s weights as this rollout last wrote them'),
  pendingCommand: z
    .enum(OPERATOR_COMMANDS)
    .optional()
    .describe('accepted, not yet carried out by the leader'),
  finalWeights: weightsSchema.describe(
    'the route’s weights once this rollout completes: all on plan.toVersion, or for an undo the weights before the undone rollout',
  ),
  undoOf: z.string().optional().describe('an undo: the completed rollout it reverses'),
  undoneBy: z.string().optional().describe('a completed rollout that was undone: the undo’s id'),
  timeline: z.array(timelineEntrySchema),
});

export const rolloutListSchema = z.object({ rollouts: z.array(rolloutViewSchema) });

// Compile-time agreement between what is sent and what is documented.
const sentView = (v: RolloutView): z.input<typeof rolloutViewSchema> => v;
const sentEntry = (v: TimelineEntry): z.input<typeof timelineEntrySchema> => v;
export const VIEWS_MATCH_SCHEMAS = [sentView, sentEntry] as const;
