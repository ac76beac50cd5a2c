/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-return -- walking a generated JSON document */
import { buildRouterOpenApi } from './router.openapi';

const doc = buildRouterOpenApi() as any;
const op = (method: string, path: string) => doc.paths[path][method];
const headerNames = (o: any): string[] =>
  (o.parameters ?? [])
    .filter((p: any) => p.in === 'header')
    .map((p: any) => p.name)
    .sort();

describe('the router OpenAPI document (generated from the zod schemas)', () => {
  it('documents every endpoint with a summary', () => {
    const ops = Object.entries(doc.paths).flatMap(([path, item]: [string, any]) =>
      Object.entries(item).map(([method, o]: [string, any]) => ({ path, method, o })),
    );
    expect(ops.map(({ method, path }) => `${method} ${path}`).sort()).toEqual(
      [
        'get /healthz/live',
        'get /healthz/ready',
        'get /metrics',
        'post /v1/predict',
        'post /v1/predict:batch',
        'post /v1/tokenize',
        'get /v1/tasks',
        'get /v1/admin/table',
        'get /v1/admin/routes',
        'put /v1/admin/routes',
        'delete /v1/admin/routes/{tenant}/{task}',
        'get /v1/admin/tenants',
        'put /v1/admin/tenants',
        'delete /v1/admin/tenants/{name}',
        'get /v1/admin/audit',
        'post /v1/admin/reseed',
      ].sort(),
    );
    for (const { o } of ops) expect(typeof o.summary).toBe('string');
  });

  it('takes request bodies from the validators: fields, required, no extra keys', () => {
    const body = doc.components.schemas.PredictRequest;
    expect(Object.keys(body.properties)).toEqual(['task', 'text', 'textPair']);
    expect(body.required).toEqual(['task', 'text']);
    expect(body.additionalProperties).toBe(false);
    expect(body.properties.task.pattern).toBe('^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$');
    const route = doc.components.schemas.Route;
    expect(route.required).toEqual(expect.arrayContaining(['tenant', 'task', 'model', 'versions']));
    expect(route.properties.versions.minItems).toBe(1);
    expect(op('put', '/v1/admin/routes').requestBody.content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/Route',
    });
  });

  it('documents error responses with the status of the error table and the one error shape', () => {
    const predict = op('post', '/v1/predict').responses;
    expect(Object.keys(predict).sort()).toEqual(
      ['200', '400', '401', '404', '413', '415', '429', '500', '502', '503', '504'].sort(),
    );
    expect(predict['404'].description).toBe('TASK_NOT_FOUND');
    expect(predict['429'].description).toBe('RATE_LIMITED, TOO_MANY_IN_FLIGHT');
    expect(predict['415'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/Error',
    });
    const admin = op('put', '/v1/admin/routes').responses;
    expect(admin['403'].description).toBe('ADMIN_FORBIDDEN');
    expect(admin['409'].description).toBe('EPOCH_CONFLICT');
    expect(op('get', '/v1/tasks').responses['400']).toBeUndefined();
  });

  it('describes keys as opaque bearer API keys, tenant or admin per operation', () => {
    const schemes = doc.components.securitySchemes;
    expect(schemes.tenantKey).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(schemes.tenantKey.bearerFormat).not.toMatch(/jwt/i);
    expect(op('post', '/v1/predict').security).toEqual([{ tenantKey: [] }]);
    expect(op('get', '/v1/admin/table').security).toEqual([{ adminKey: [] }]);
    expect(op('get', '/healthz/ready').security).toEqual([]);
  });

  it('lists request headers only on the operations that read them', () => {
    expect(headerNames(op('post', '/v1/predict'))).toEqual([
      'traceparent',
      'x-mesh-sticky-key',
      'x-request-id',
    ]);
    expect(headerNames(op('get', '/v1/tasks'))).toEqual(['x-request-id']);
    expect(headerNames(op('get', '/v1/admin/routes'))).toEqual(['x-request-id']);
    expect(headerNames(op('put', '/v1/admin/routes'))).toEqual([
      'x-mesh-expected-epoch',
      'x-request-id',
    ]);
    expect(op('get', '/v1/admin/audit').parameters).toContainEqual(
      expect.objectContaining({ in: 'query', name: 'limit', required: false }),
    );
  });
});
