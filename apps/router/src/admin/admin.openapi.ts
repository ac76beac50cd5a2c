import { routeSchema, tenantSchema } from '@mesh/routing';
import { z } from 'zod';
import type { ApiDocs } from '../openapi/api-docs';
import {
  auditEntrySchema,
  auditLimitSchema,
  changeResultSchema,
  editHeaders,
  routeEditQuery,
  routeEditResultSchema,
  routeStatusSchema,
  tableSchema,
} from './admin.schema';

const name = z.string().describe('1-64 characters of [A-Za-z0-9._-]');
const common = { tag: 'admin', auth: 'admin' } as const;
/** What any routing-table edit may answer. */
const edit = [
  'INVALID_ROUTING_CONFIG',
  'EPOCH_CONFLICT',
  'ROUTING_TABLE_MISSING',
  'STORE_UNAVAILABLE',
] as const;
/** A read of the routing table: it may not be seeded yet, or the store may be down. */
const tableRead = {
  ...common,
  method: 'get',
  errors: ['ROUTING_TABLE_MISSING', 'STORE_UNAVAILABLE'],
} as const;

/** What an edit answers: the new epoch and table. */
type ChangeResponse = { description: string; schema: typeof changeResultSchema };

/** The admin API (`AdminController`), all behind the admin key. */
export function describeAdminApi(docs: ApiDocs): void {
  const route = docs.schema('Route', routeSchema);
  const tenant = docs.schema('Tenant', tenantSchema);
  const table = docs.schema('RoutingTable', tableSchema);
  const change = {
    description: 'the new epoch and table',
    schema: docs.schema('ChangeResult', changeResultSchema),
  };
  docs.operation({
    ...tableRead,
    path: '/v1/admin/table',
    summary: 'The whole routing table',
    response: { description: 'tenants and routes at the current epoch', schema: table },
  });
  describeRouteEdits(docs, route, change);
  describeTenantEdits(docs, tenant, change);
  docs.operation({
    ...common,
    method: 'get',
    path: '/v1/admin/audit',
    summary: 'The audit log of routing-table edits',
    query: z.object({ limit: auditLimitSchema }),
    response: {
      description: 'newest first',
      schema: z.object({ entries: z.array(docs.schema('AuditEntry', auditEntrySchema)) }),
    },
    errors: ['INVALID_ARGUMENT'],
  });
  docs.operation({
    ...common,
    method: 'post',
    path: '/v1/admin/reseed',
    summary: 'Replace the routing table with MESH_CONFIG',
    response: change,
    errors: ['INVALID_ROUTING_CONFIG'],
  });
}

/** The routes of (tenant, task): read, create or replace, delete. */
function describeRouteEdits(
  docs: ApiDocs,
  route: typeof routeSchema,
  change: ChangeResponse,
): void {
  docs.operation({
    ...tableRead,
    path: '/v1/admin/routes',
    summary: 'Every route, with why each version is unroutable',
    response: {
      description: 'routes and their per-version status',
      schema: z.object({ epoch: z.number().int(), routes: z.array(routeStatusSchema) }),
    },
  });
  docs.operation({
    ...common,
    method: 'put',
    path: '/v1/admin/routes',
    summary: 'Create or replace the route of (tenant, task), checked against the model repository',
    headers: editHeaders,
    query: routeEditQuery,
    body: route,
    response: {
      description: 'the new epoch and table, and the versions this router cannot route yet',
      schema: docs.schema('RouteEditResult', routeEditResultSchema),
    },
    errors: [
      ...edit,
      'INVALID_ARGUMENT',
      'UNKNOWN_MODEL',
      'MODEL_CONFIG_INVALID',
      'UNKNOWN_VERSION',
      'VERSION_NOT_SELECTED',
      'MANIFEST_INVALID',
      'MODEL_TOO_LARGE',
    ],
  });
  docs.operation({
    ...common,
    method: 'delete',
    path: '/v1/admin/routes/{tenant}/{task}',
    summary: 'Delete a route',
    headers: editHeaders,
    params: z.object({ tenant: name.describe('tenant name or *'), task: name }),
    response: change,
    errors: [...edit, 'INVALID_ARGUMENT', 'NOT_FOUND'],
  });
}

/** The tenants: read, create or replace, delete. */
function describeTenantEdits(
  docs: ApiDocs,
  tenant: typeof tenantSchema,
  change: ChangeResponse,
): void {
  docs.operation({
    ...tableRead,
    path: '/v1/admin/tenants',
    summary: 'Every tenant',
    response: {
      description: 'tenants (key hashes only)',
      schema: z.object({ epoch: z.number().int(), tenants: z.array(tenant) }),
    },
  });
  docs.operation({
    ...common,
    method: 'put',
    path: '/v1/admin/tenants',
    summary: 'Create or replace a tenant',
    headers: editHeaders,
    body: tenant,
    response: change,
    errors: edit,
  });
  docs.operation({
    ...common,
    method: 'delete',
    path: '/v1/admin/tenants/{name}',
    summary: 'Delete a tenant',
    headers: editHeaders,
    params: z.object({ name }),
    response: change,
    errors: [...edit, 'INVALID_ARGUMENT', 'NOT_FOUND'],
  });
}
