/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-return -- walking a generated JSON document */
import { OPERATOR_COMMANDS, ROLLOUT_STATES } from '@mesh/rollout-contract';
import { buildCoordinatorOpenApi } from './coordinator.openapi';

const doc = buildCoordinatorOpenApi() as any;
const op = (method: string, path: string) => doc.paths[path][method];
const schemas = doc.components.schemas;
const ERROR_REF = { $ref: '#/components/schemas/Error' };

describe('the coordinator OpenAPI document (generated from the zod schemas)', () => {
  it('documents every endpoint with a summary', () => {
    const ops = Object.entries(doc.paths).flatMap(([path, item]: [string, any]) =>
      Object.entries(item).map(([method, o]: [string, any]) => ({ path, method, o })),
    );
    expect(ops.map(({ method, path }) => `${method} ${path}`).sort()).toEqual(
      [
        'post /v1/rollouts',
        'get /v1/rollouts',
        'get /v1/rollouts/{id}',
        'post /v1/rollouts/{id}/undo',
        'post /v1/rollouts/{id}/{command}',
        'get /v1/dashboard/routes',
        'get /v1/dashboard/traffic',
        'get /v1/dashboard/rollouts',
        'get /v1/dashboard/jobs',
        'get /v1/dashboard/models',
        'get /v1/dashboard/{view}/stream',
        'put /v1/dashboard/routes/{tenant}/{task}/weights',
        'post /v1/dashboard/jobs/{id}/cancel',
        'get /v1/dashboard/jobs/{id}/results',
        'get /ui',
        'get /healthz/live',
        'get /healthz/ready',
        'get /metrics',
      ].sort(),
    );
    for (const { o } of ops) expect(typeof o.summary).toBe('string');
    expect(doc.openapi).toBe('3.0.3');
    expect(doc.info.title).toBe('model mesh coordinator');
  });

  it('takes the plan body from the plan schema: fields, required, defaults, no extra keys', () => {
    expect(op('post', '/v1/rollouts').requestBody.content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/RolloutPlan',
    });
    const plan = schemas.RolloutPlan;
    expect(Object.keys(plan.properties).sort()).toEqual(
      [
        'tenant',
        'task',
        'model',
        'toVersion',
        'window',
        'lowLoad',
        'warmup',
        'shadow',
        'steps',
        'bakeSeconds',
        'gates',
        'onFailure',
      ].sort(),
    );
    expect([...plan.required].sort()).toEqual(['model', 'steps', 'task', 'toVersion']);
    expect(plan.additionalProperties).toBe(false);
    expect(plan.properties.onFailure).toMatchObject({
      enum: ['rollback', 'pause'],
      default: 'rollback',
    });
    expect(plan.properties.steps).toMatchObject({ type: 'array', minItems: 1, maxItems: 20 });
    expect(plan.properties.steps.items.properties.weight).toMatchObject({
      minimum: 0,
      maximum: 100,
    });
  });

  it('answers rollouts as RolloutView, its states and commands from the rollout contract', () => {
    const created = op('post', '/v1/rollouts').responses['201'];
    expect(created.content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/RolloutView',
    });
    const view = schemas.RolloutView;
    expect(view.properties.state.enum).toEqual([...ROLLOUT_STATES]);
    expect(view.properties.pendingCommand.enum).toEqual([...OPERATOR_COMMANDS]);
    expect(Object.keys(view.properties.timeline.items.properties).sort()).toEqual(
      ['at', 'from', 'metrics', 'reason', 'step', 'to'].sort(),
    );
    const command = op('post', '/v1/rollouts/{id}/{command}');
    expect(command.parameters).toContainEqual(
      expect.objectContaining({
        in: 'path',
        name: 'command',
        required: true,
        schema: expect.objectContaining({ enum: [...OPERATOR_COMMANDS] }),
      }),
    );
    expect(Object.keys(command.responses)).toContain('202');
  });

  it('documents error responses with the status of the error table and the one error shape', () => {
    const create = op('post', '/v1/rollouts').responses;
    expect(Object.keys(create).sort()).toEqual(
      ['201', '400', '401', '403', '409', '413', '415', '422', '503'].sort(),
    );
    expect(create['400'].description).toBe('INVALID_JSON, INVALID_PLAN');
    expect(create['422'].description).toBe('PLAN_REJECTED, MODEL_TOO_LARGE');
    expect(create['409'].description).toBe('ROLLOUT_CONFLICT');
    expect(create['400'].content['application/json'].schema).toEqual(ERROR_REF);
    expect(op('get', '/v1/rollouts/{id}').responses['404'].description).toBe('ROLLOUT_NOT_FOUND');
    expect(op('post', '/v1/rollouts/{id}/{command}').responses['409'].description).toBe(
      'INVALID_COMMAND, REVISION_CONFLICT',
    );
    const error = schemas.Error.properties.error;
    expect(Object.keys(error.properties)).toEqual(['code', 'message', 'details']);
    expect(error.required).toEqual(['code', 'message']);
  });

  it('puts every API call behind the admin bearer key, and health and the page outside it', () => {
    expect(doc.components.securitySchemes.adminKey).toMatchObject({
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'opaque API key',
    });
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      for (const o of Object.values<any>(item)) {
        const open = path.startsWith('/healthz') || path === '/metrics' || path === '/ui';
        expect([path, o.security]).toEqual([path, open ? [] : [{ adminKey: [] }]]);
        if (!open)
          expect([path, o.responses['403']?.description]).toEqual([path, 'ADMIN_FORBIDDEN']);
      }
    }
  });

  it('describes the dashboard’s views, the Traffic view’s retired versions included', () => {
    expect(
      op('get', '/v1/dashboard/traffic').responses['200'].content['application/json'].schema,
    ).toEqual({ $ref: '#/components/schemas/TrafficView' });
    const row = schemas.TrafficView.properties.rows.items;
    expect(row.properties.retired.type).toBe('boolean');
    expect(row.required).toEqual(expect.arrayContaining(['task', 'model', 'version', 'retired']));
    const weights = op('put', '/v1/dashboard/routes/{tenant}/{task}/weights');
    expect(weights.requestBody.content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/WeightsEdit',
    });
    expect(schemas.WeightsEdit.required).toEqual(['expectedEpoch', 'versions']);
    expect(Object.keys(op('get', '/v1/dashboard/{view}/stream').responses['200'].content)).toEqual([
      'application/x-ndjson',
    ]);
  });
});
