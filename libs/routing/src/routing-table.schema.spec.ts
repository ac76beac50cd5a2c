import { parseRoute, parseRoutingTableData, parseTenant } from './routing-table.schema';
import { RoutingValidationError, type RoutingIssue } from './routing.errors';
import { canaryRoute } from './testing/routing-fixtures';

const HASH_A = 'a'.repeat(64);
const HASH_B = 'b'.repeat(64);

function tenant(name: string, over: object = {}) {
  return {
    name,
    keySha256: [name === 'acme' ? HASH_A : HASH_B],
    allowedTasks: ['*'],
    rateLimit: { requestsPerSecond: 10, burst: 20 },
    maxInFlight: 4,
    ...over,
  };
}

const route = canaryRoute;

function issuesOf(fn: () => unknown): RoutingIssue[] {
  try {
    fn();
  } catch (err: unknown) {
    if (err instanceof RoutingValidationError) return [...err.issues];
    throw err;
  }
  throw new Error('expected a RoutingValidationError');
}

describe('routing table validation', () => {
  it('accepts a well-formed table and keeps optional shadow and cache settings', () => {
    const data = parseRoutingTableData({
      tenants: [tenant('acme'), tenant('globex')],
      routes: [
        route({ shadow: { version: 3, percent: 5 }, cache: { enabled: true, maxEntries: 100 } }),
        route({ tenant: 'acme', versions: [{ version: 2, weight: 1 }] }),
      ],
    });
    expect(data.routes[0]?.shadow).toEqual({ version: 3, percent: 5 });
    expect(data.routes[1]?.tenant).toBe('acme');
    expect(data.tenants.map((t) => t.name)).toEqual(['acme', 'globex']);
  });

  it('names the field path of a negative weight and a non-integer version', () => {
    const issues = issuesOf(() =>
      parseRoutingTableData({
        tenants: [],
        routes: [
          route(),
          route({
            task: 'sentiment',
            versions: [
              { version: 1.5, weight: 1 },
              { version: 2, weight: -1 },
            ],
          }),
        ],
      }),
    );
    expect(issues).toEqual(
      expect.arrayContaining([
        { path: 'routes[1].versions[0].version', message: 'must be an integer' },
        { path: 'routes[1].versions[1].weight', message: 'must be ≥ 0' },
      ]),
    );
  });

  it('rejects weights that sum to zero and version 0', () => {
    const issues = issuesOf(() =>
      parseRoute({
        ...route(),
        versions: [
          { version: 0, weight: 0 },
          { version: 2, weight: 0 },
        ],
      }),
    );
    expect(issues).toEqual(
      expect.arrayContaining([
        { path: 'versions', message: 'weights must sum to more than 0' },
        { path: 'versions[0].version', message: 'must be a positive integer' },
      ]),
    );
  });

  it('rejects an empty version list and a version listed twice', () => {
    expect(issuesOf(() => parseRoute(route({ versions: [] })))).toEqual([
      { path: 'versions', message: 'must list at least one version' },
    ]);
    const twice = route({
      versions: [
        { version: 2, weight: 1 },
        { version: 2, weight: 1 },
      ],
    });
    expect(issuesOf(() => parseRoute(twice))).toEqual([
      { path: 'versions[1].version', message: 'is listed twice' },
    ]);
  });

  it('rejects a duplicate (tenant, task) pair but allows the same task for another tenant', () => {
    const issues = issuesOf(() =>
      parseRoutingTableData({
        tenants: [tenant('acme')],
        routes: [route(), route({ tenant: 'acme' }), route({ model: 'other' })],
      }),
    );
    expect(issues).toEqual([
      { path: 'routes[2]', message: "duplicate route for (tenant '*', task 'intent')" },
    ]);
  });

  it('rejects a route for an unknown tenant, duplicate tenants and a key shared by two tenants', () => {
    const issues = issuesOf(() =>
      parseRoutingTableData({
        tenants: [tenant('acme'), tenant('acme'), tenant('globex', { keySha256: [HASH_A] })],
        routes: [route({ tenant: 'initech' })],
      }),
    );
    expect(issues).toEqual(
      expect.arrayContaining([
        { path: 'tenants[1].name', message: "duplicate tenant 'acme'" },
        { path: 'tenants[1].keySha256[0]', message: "key already belongs to tenant 'acme'" },
        { path: 'tenants[2].keySha256[0]', message: "key already belongs to tenant 'acme'" },
        { path: 'routes[0].tenant', message: "unknown tenant 'initech'" },
      ]),
    );
  });

  it('validates tenant fields: key digests, burst ≥ rate, positive in-flight, no "*" name', () => {
    const issues = issuesOf(() =>
      parseTenant({
        ...tenant('*'),
        keySha256: ['ABC'],
        rateLimit: { requestsPerSecond: 10, burst: 5 },
        maxInFlight: 0,
      }),
    );
    expect(issues.map((i) => i.path).sort()).toEqual([
      'keySha256[0]',
      'maxInFlight',
      'name',
      'rateLimit.burst',
    ]);
    expect(issues.find((i) => i.path === 'rateLimit.burst')?.message).toBe(
      'must be at least requestsPerSecond',
    );
  });

  it('rejects unknown fields so typos in mesh.yaml do not pass silently', () => {
    const issues = issuesOf(() => parseRoute({ ...route(), wieghts: [] }));
    expect(issues).toHaveLength(1);
    expect(issues[0]?.message).toMatch(/wieghts/);
  });

  it('reports every problem in one error whose message lists each path', () => {
    let error: unknown;
    try {
      parseRoutingTableData(
        { tenants: [tenant('acme', { maxInFlight: -1 })], routes: [route({ model: '' })] },
        'mesh.yaml',
      );
    } catch (err: unknown) {
      error = err;
    }
    expect(error).toBeInstanceOf(RoutingValidationError);
    const e = error as RoutingValidationError;
    expect(e.code).toBe('INVALID_ROUTING_CONFIG');
    expect(e.message).toMatch(/^mesh\.yaml: 2 problems/);
    expect(e.message).toContain('tenants[0].maxInFlight: must be a positive integer');
    expect(e.message).toContain('routes[0].model: model must be 1-64 characters');
  });
});
