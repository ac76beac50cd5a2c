import { oneOfMessage } from '@mesh/errors';
import { routeSchema, tenantSchema } from '@mesh/routing';
import { z } from 'zod';

/** The admin API's edge schemas: what it reads besides route/tenant bodies, and what it answers. */
export const EPOCH_HEADER = 'x-mesh-expected-epoch';

export const epochHeaderSchema = z.coerce
  .number({ invalid_type_error: 'must be a number' })
  .int('must be an integer')
  .nonnegative('must be ≥ 0')
  .optional()
  .describe('fail with 409 EPOCH_CONFLICT unless the table is still at this epoch');

export const auditLimitSchema = z.coerce
  .number({ invalid_type_error: 'must be a number' })
  .int('must be an integer')
  .min(1, 'must be 1-10000')
  .max(10_000, 'must be 1-10000')
  .default(100)
  .describe('newest entries first');

export const editHeaders = z.object({ [EPOCH_HEADER]: epochHeaderSchema });

const FORCE_VALUES = ['true', 'false'] as const;

export const forceQuerySchema = z
  .enum(FORCE_VALUES, {
    errorMap: (_issue, ctx) => ({ message: oneOfMessage(FORCE_VALUES, ctx.data) }),
  })
  .optional()
  .describe('true writes a route the repository cannot serve yet (pre-staging)');

export const routeEditQuery = z.object({ force: forceQuerySchema });

const epoch = z.number().int().describe('the routing table epoch');

export const tableSchema = z.object({
  epoch,
  tenants: z.array(tenantSchema),
  routes: z.array(routeSchema),
});

export const changeResultSchema = z.object({ epoch, table: tableSchema });

export const routeEditResultSchema = changeResultSchema.extend({
  unroutable: z
    .record(z.string())
    .describe('per version of the route (key) this router cannot route yet, and why'),
});

export const routeStatusSchema = z.intersection(
  routeSchema,
  z.object({
    unroutable: z
      .record(z.string())
      .describe('per version (key), why it cannot take traffic now; absent when routable'),
  }),
);

export const auditEntrySchema = z.object({
  epoch,
  who: z.string().describe('the actor (ADMIN_ACTOR for admin API edits)'),
  when: z.string().describe('ISO-8601'),
  action: z.string().describe('route.upsert, route.delete, tenant.upsert, tenant.delete, reseed …'),
  target: z.string().optional(),
  before: z.unknown(),
  after: z.unknown(),
});
