import { fieldPath, oneOfMessage } from '@mesh/errors';
import type { RolloutPlan } from '@mesh/rollout-contract';
import { z } from 'zod';
import { InvalidPlanError, type RolloutIssue } from './rollout.errors';
import { RolloutWindow } from './rollout-window';

const FAILURE_POLICIES = ['rollback', 'pause'] as const;

const name = z
  .string({ required_error: 'is required', invalid_type_error: 'must be a string' })
  .regex(/^[A-Za-z0-9._-]{1,64}$/, 'must be 1-64 characters of [A-Za-z0-9._-]');
const seconds = z
  .number({ invalid_type_error: 'must be a number' })
  .int()
  .min(0)
  .max(7 * 86_400);
const weight = z.number().min(0).max(100);
const timezone = z.string().min(1);
const cron = z.string().min(1);

export const planSchema = z
  .object({
    tenant: z.union([z.literal('*'), name]).default('*'),
    task: name,
    model: name,
    toVersion: z.number({ required_error: 'is required' }).int().positive(),
    window: z
      .object({
        cron,
        timezone: timezone.default('UTC'),
        durationMinutes: z
          .number()
          .int()
          .positive()
          .max(7 * 24 * 60),
      })
      .strict()
      .optional(),
    lowLoad: z
      .object({
        maxRequestsPerSecond: z.number().nonnegative(),
        forSeconds: seconds.pipe(z.number().positive()),
      })
      .strict()
      .optional(),
    warmup: z
      .object({ requests: z.number().int().min(0).max(10_000) })
      .strict()
      .optional(),
    shadow: z
      .object({
        sampleRate: z.number().min(0).max(1),
        holdSeconds: seconds,
        minAgreement: z.number().min(0).max(1),
      })
      .strict()
      .optional(),
    steps: z
      .array(z.object({ weight, holdSeconds: seconds }).strict(), {
        required_error: 'is required',
      })
      .min(1, 'needs at least one step')
      .max(20, 'at most 20 steps'),
    bakeSeconds: seconds.default(0),
    gates: z
      .object({
        maxErrorRate: z.number().min(0).max(1).optional(),
        maxP99Ms: z.number().positive().optional(),
        maxP99Ratio: z.number().positive().optional(),
        minRequests: z.number().int().min(0).optional(),
      })
      .strict()
      .optional(),
    onFailure: z
      .enum(FAILURE_POLICIES, {
        errorMap: (_issue, ctx) => ({ message: oneOfMessage(FAILURE_POLICIES, ctx.data) }),
      })
      .default('rollback'),
  })
  .strict();

/**
 * Validates a plan document: its shape (types, ranges, unknown fields) and the rules across
 * fields (weights, the last step, gates, the window's zone and cron), every problem in one
 * answer. The rules run on whatever part of the plan is well-formed, so a type error elsewhere
 * does not hide them and the caller fixes the plan in one round.
 */
export function parseRolloutPlan(input: unknown): RolloutPlan {
  const parsed = planSchema.safeParse(input);
  const issues: RolloutIssue[] = parsed.success
    ? []
    : parsed.error.issues.map((i) => ({ path: fieldPath(i.path), message: i.message }));
  const doc = objectOf(input);
  if (doc)
    issues.push(...stepIssues(doc.steps), ...gateIssues(doc.gates), ...windowIssues(doc.window));
  if (!parsed.success || issues.length > 0) throw new InvalidPlanError(issues);
  return parsed.data;
}

/** Weights never decrease and the last is 100; a step whose weight is itself bad is skipped. */
function stepIssues(steps: unknown): RolloutIssue[] {
  if (!Array.isArray(steps)) return [];
  const weights = steps.map((step) => valid(weight, objectOf(step)?.weight));
  const issues: RolloutIssue[] = [];
  let before: number | undefined;
  weights.forEach((w, i) => {
    if (w === undefined) return;
    if (before !== undefined && w < before) {
      issues.push({ path: `steps[${i}].weight`, message: 'weights must not decrease' });
    }
    before = w;
  });
  const last = weights[weights.length - 1];
  if (last !== undefined && last !== 100) {
    issues.push({
      path: `steps[${weights.length - 1}].weight`,
      message: `the last step must be 100 (got ${last})`,
    });
  }
  return issues;
}

function gateIssues(gates: unknown): RolloutIssue[] {
  const g = objectOf(gates);
  if (g?.maxP99Ms === undefined || g.maxP99Ratio === undefined) return [];
  return [{ path: 'gates', message: 'give maxP99Ms or maxP99Ratio, not both' }];
}

/** The zone and the cron, each checked when it is a usable string (the zone defaults to UTC). */
function windowIssues(window: unknown): RolloutIssue[] {
  const w = objectOf(window);
  if (!w) return [];
  const zone = w.timezone === undefined ? 'UTC' : valid(timezone, w.timezone);
  const expr = valid(cron, w.cron);
  return RolloutWindow.problems({
    ...(zone === undefined ? {} : { timezone: zone }),
    ...(expr === undefined ? {} : { cron: expr }),
  });
}

function valid<T>(schema: z.ZodType<T>, value: unknown): T | undefined {
  const r = schema.safeParse(value);
  return r.success ? r.data : undefined;
}

function objectOf(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}
