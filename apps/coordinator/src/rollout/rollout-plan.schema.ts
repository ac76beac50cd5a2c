import type { RolloutPlan } from '@mesh/rollout-contract';
import { z } from 'zod';
import { InvalidPlanError, type RolloutIssue } from './rollout.errors';
import { RolloutWindow } from './rollout-window';

const name = z
  .string({ required_error: 'is required', invalid_type_error: 'must be a string' })
  .regex(/^[A-Za-z0-9._-]{1,64}$/, 'must be 1-64 characters of [A-Za-z0-9._-]');
const seconds = z
  .number({ invalid_type_error: 'must be a number' })
  .int()
  .min(0)
  .max(7 * 86_400);

const planSchema = z
  .object({
    tenant: z.union([z.literal('*'), name]).default('*'),
    task: name,
    model: name,
    toVersion: z.number({ required_error: 'is required' }).int().positive(),
    window: z
      .object({
        cron: z.string().min(1),
        timezone: z.string().min(1).default('UTC'),
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
      .array(z.object({ weight: z.number().min(0).max(100), holdSeconds: seconds }).strict(), {
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
    onFailure: z.enum(['rollback', 'pause']).default('rollback'),
  })
  .strict();

/** Validates a plan document's shape and its self-contained rules; every problem at once. */
export function parseRolloutPlan(input: unknown): RolloutPlan {
  const parsed = planSchema.safeParse(input);
  if (!parsed.success) {
    throw new InvalidPlanError(
      parsed.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message })),
    );
  }
  const plan = parsed.data;
  const issues: RolloutIssue[] = [];
  const last = plan.steps[plan.steps.length - 1];
  if (last && last.weight !== 100) {
    issues.push({
      path: `steps[${plan.steps.length - 1}].weight`,
      message: `the last step must be 100 (got ${last.weight})`,
    });
  }
  plan.steps.forEach((step, i) => {
    const prev = plan.steps[i - 1];
    if (prev && step.weight < prev.weight) {
      issues.push({ path: `steps[${i}].weight`, message: 'weights must not decrease' });
    }
  });
  if (plan.gates?.maxP99Ms !== undefined && plan.gates.maxP99Ratio !== undefined) {
    issues.push({ path: 'gates', message: 'give maxP99Ms or maxP99Ratio, not both' });
  }
  if (plan.window) {
    const problem = RolloutWindow.problem(plan.window);
    if (problem) issues.push(problem);
  }
  if (issues.length > 0) throw new InvalidPlanError(issues);
  return plan;
}
