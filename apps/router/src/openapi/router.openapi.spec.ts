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
        'post /v1/jobs',
        'get /v1/jobs',
        'get /v1/jobs/{id}',
        'get /v1/jobs/{id}/events',
        'get /v1/jobs/{id}/results',
        'delete /v1/jobs/{id}',
        'get /v1/admin/jobs',
        'get /v1/admin/jobs/{id}',
        'delete /v1/admin/jobs/{id}',
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

  describe('the jobs API', () => {
    it('takes a JSON body from the controller’s schema, or an NDJSON upload with ?task=', () => {
      const submit = op('post', '/v1/jobs');
      expect(submit.summary).toMatch(/bulk job/);
      expect(Object.keys(submit.requestBody.content).sort()).toEqual([
        'application/json',
        'application/x-ndjson',
      ]);
      const body = doc.components.schemas.SubmitJobRequest;
      expect(Object.keys(body.properties).sort()).toEqual(['items', 'stickyKey', 'task']);
      expect(body.required).toEqual(['task', 'items']);
      expect(body.additionalProperties).toBe(false);
      expect(body.properties.items.items).toEqual({ $ref: '#/components/schemas/JobItem' });
      expect(doc.components.schemas.JobItem.required).toEqual(['text']);
      expect(submit.parameters).toContainEqual(
        expect.objectContaining({ in: 'query', name: 'task', required: false }),
      );
      expect(headerNames(submit)).toEqual(['idempotency-key', 'x-mesh-sticky-key', 'x-request-id']);
      expect(Object.keys(submit.responses['202'].content)).toEqual(['application/json']);
    });

    it('documents the refusals of a submit with their statuses', () => {
      const r = op('post', '/v1/jobs').responses;
      expect(Object.keys(r).sort()).toEqual(
        ['202', '400', '401', '404', '413', '415', '429', '500', '503'].sort(),
      );
      expect(r['429'].description).toBe('JOB_QUOTA_EXCEEDED');
      expect(r['400'].description).toContain('INVALID_INPUT');
      expect(r['413'].description).toBe('PAYLOAD_TOO_LARGE');
    });

    it('documents status, events, results, cancel and list, with 404 for an unknown job', () => {
      for (const [method, path] of [
        ['get', '/v1/jobs/{id}'],
        ['get', '/v1/jobs/{id}/events'],
        ['get', '/v1/jobs/{id}/results'],
        ['delete', '/v1/jobs/{id}'],
      ] as const) {
        const o = op(method, path);
        expect([path, o.responses['404']?.description]).toEqual([path, 'JOB_NOT_FOUND']);
        expect(o.parameters).toContainEqual(
          expect.objectContaining({ in: 'path', name: 'id', required: true }),
        );
        expect(o.security).toEqual([{ tenantKey: [] }]);
      }
      expect(
        op('get', '/v1/jobs/{id}').responses['200'].content['application/json'].schema,
      ).toEqual({ $ref: '#/components/schemas/JobStatus' });
      expect(doc.components.schemas.JobStatus.properties.state.enum).toEqual([
        'queued',
        'running',
        'waiting_for_version',
        'completed',
        'failed',
        'cancelled',
      ]);
      expect(Object.keys(op('get', '/v1/jobs/{id}/events').responses['200'].content)).toEqual([
        'text/event-stream',
      ]);
      const results = op('get', '/v1/jobs/{id}/results');
      expect(Object.keys(results.responses['200'].content)).toEqual(['application/x-ndjson']);
      expect(results.parameters).toContainEqual(
        expect.objectContaining({ in: 'query', name: 'from', required: false }),
      );
      const list = op('get', '/v1/jobs');
      expect(list.parameters.map((p: any) => p.name).sort()).toEqual([
        'limit',
        'state',
        'x-request-id',
      ]);
      expect(list.responses['400'].description).toBe('INVALID_ARGUMENT');
      expect(op('get', '/v1/admin/jobs').security).toEqual([{ adminKey: [] }]);
    });
  });
});
