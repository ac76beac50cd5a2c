import { z } from 'zod';
import { RoutingValidationError, type RoutingIssue } from './routing.errors';
import { ANY, type Route, type RoutingTableData, type Tenant } from './routing.types';

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const SHA256_HEX = /^[0-9a-f]{64}$/;

const name = (what: string) =>
  z.string({ required_error: 'is required', invalid_type_error: 'must be a string' }).regex(NAME, {
    message: `${what} must be 1-64 characters of [A-Za-z0-9._-], starting with a letter or digit`,
  });

const positiveInt = z
  .number({ required_error: 'is required', invalid_type_error: 'must be a number' })
  .int('must be an integer')
  .positive('must be a positive integer');

const positiveNumber = z
  .number({ required_error: 'is required', invalid_type_error: 'must be a number' })
  .finite('must be finite')
  .positive('must be positive');

const tenantShape = z
  .object({
    name: name('tenant name'),
    keySha256: z.array(
      z.string().regex(SHA256_HEX, 'must be a lower-case sha256 hex digest (64 characters)'),
    ),
    allowedTasks: z.array(z.union([z.literal(ANY), name('task')])),
    rateLimit: z
      .object({ requestsPerSecond: positiveNumber, burst: positiveInt })
      .strict()
      .refine((r) => r.burst >= r.requestsPerSecond, {
        message: 'must be at least requestsPerSecond',
        path: ['burst'],
      }),
    maxInFlight: positiveInt,
    jobs: z
      .object({ maxQueuedItems: positiveInt.optional(), maxConcurrentJobs: positiveInt.optional() })
      .strict()
      .optional(),
  })
  .strict();

const versionWeight = z
  .object({
    version: positiveInt,
    weight: z
      .number({ required_error: 'is required', invalid_type_error: 'must be a number' })
      .finite('must be finite')
      .nonnegative('must be ≥ 0'),
  })
  .strict();

const routeShape = z
  .object({
    tenant: z.union([z.literal(ANY), name('tenant')]),
    task: name('task'),
    model: name('model'),
    versions: z.array(versionWeight).min(1, 'must list at least one version'),
    shadow: z
      .object({
        version: positiveInt,
        percent: z.number().min(0, 'must be 0-100').max(100, 'must be 0-100').optional(),
      })
      .strict()
      .optional(),
    cache: z
      .object({ enabled: z.boolean(), maxEntries: positiveInt.optional() })
      .strict()
      .optional(),
  })
  .strict()
  .superRefine((route, ctx) => {
    const total = route.versions.reduce((sum, v) => sum + v.weight, 0);
    if (route.versions.length > 0 && !(total > 0)) {
      ctx.addIssue({
        code: 'custom',
        path: ['versions'],
        message: 'weights must sum to more than 0',
      });
    }
    const seen = new Set<number>();
    route.versions.forEach((v, i) => {
      if (seen.has(v.version)) {
        ctx.addIssue({
          code: 'custom',
          path: ['versions', i, 'version'],
          message: 'is listed twice',
        });
      }
      seen.add(v.version);
    });
  });

const tableShape = z
  .object({ tenants: z.array(tenantShape), routes: z.array(routeShape) })
  .strict()
  .superRefine((table, ctx) => {
    for (const issue of crossCheck(table)) ctx.addIssue({ code: 'custom', ...issue });
  });

/** Rules that span entries: unique names and keys, one route per (tenant, task), known tenants. */
function crossCheck(table: RoutingTableData): { path: (string | number)[]; message: string }[] {
  const issues: { path: (string | number)[]; message: string }[] = [];
  const tenantNames = new Set<string>();
  const keyOwner = new Map<string, string>();
  table.tenants.forEach((t, i) => {
    if (tenantNames.has(t.name))
      issues.push({ path: ['tenants', i, 'name'], message: `duplicate tenant '${t.name}'` });
    tenantNames.add(t.name);
    t.keySha256.forEach((hash, k) => {
      const owner = keyOwner.get(hash);
      if (owner !== undefined) {
        issues.push({
          path: ['tenants', i, 'keySha256', k],
          message: `key already belongs to tenant '${owner}'`,
        });
      }
      keyOwner.set(hash, t.name);
    });
  });
  const routeIds = new Set<string>();
  table.routes.forEach((r, i) => {
    const id = `${r.tenant}/${r.task}`;
    if (routeIds.has(id))
      issues.push({
        path: ['routes', i],
        message: `duplicate route for (tenant '${r.tenant}', task '${r.task}')`,
      });
    routeIds.add(id);
    if (r.tenant !== ANY && !tenantNames.has(r.tenant)) {
      issues.push({ path: ['routes', i, 'tenant'], message: `unknown tenant '${r.tenant}'` });
    }
  });
  return issues;
}

/** `['routes', 2, 'versions', 0, 'weight']` → `routes[2].versions[0].weight`. */
export function formatPath(path: readonly (string | number)[]): string {
  return path.reduce<string>(
    (out, part) => (typeof part === 'number' ? `${out}[${part}]` : out ? `${out}.${part}` : part),
    '',
  );
}

function parseWith<T>(
  schema: z.ZodType<T, z.ZodTypeDef, unknown>,
  input: unknown,
  source: string,
): T {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issues: RoutingIssue[] = result.error.issues.map((i) => ({
    path: formatPath(i.path),
    message: i.message,
  }));
  throw new RoutingValidationError(source, issues);
}

export function parseTenant(input: unknown, source = 'tenant'): Tenant {
  return parseWith(tenantShape, input, source);
}

export function parseRoute(input: unknown, source = 'route'): Route {
  return parseWith(routeShape, input, source);
}

/**
 * The zod schemas of one tenant and one route, for edges that document or pre-validate them
 * (the router's OpenAPI document is generated from these). `parseTenant` / `parseRoute` are
 * the validating entry points.
 */
export const tenantSchema = tenantShape;
export const routeSchema = routeShape;

/** Validates a whole table's content (entries and cross-entry rules). */
export function parseRoutingTableData(input: unknown, source = 'routing table'): RoutingTableData {
  return parseWith(tableShape, input, source);
}
