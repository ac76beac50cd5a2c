import { RouteResolver } from './route-resolver';
import { RouteNotFoundError, UnauthenticatedError } from './routing.errors';
import type { Route, RoutingTable, Tenant } from './routing.types';

function tenant(name: string, allowedTasks: string[]): Tenant {
  return {
    name,
    keySha256: [],
    allowedTasks,
    rateLimit: { requestsPerSecond: 1, burst: 1 },
    maxInFlight: 1,
  };
}

function route(tenantName: string, task: string, version: number): Route {
  return { tenant: tenantName, task, model: `${task}-model`, versions: [{ version, weight: 1 }] };
}

const table: RoutingTable = {
  epoch: 7,
  tenants: [
    tenant('acme', ['intent', 'sentiment']),
    tenant('globex', ['*']),
    tenant('initech', ['intent']),
  ],
  routes: [
    route('*', 'intent', 3),
    route('acme', 'intent', 2),
    route('*', 'sentiment', 1),
    // Only acme has this task; it must stay invisible to everyone else.
    route('acme', 'secret', 9),
  ],
};

const resolver = new RouteResolver(table);

describe('RouteResolver', () => {
  it("prefers the tenant's own route over the '*' default", () => {
    expect(resolver.resolve('acme', 'intent').route.versions[0]?.version).toBe(2);
    expect(resolver.resolve('initech', 'intent').route.versions[0]?.version).toBe(3);
    expect(resolver.resolve('globex', 'sentiment').tenant.name).toBe('globex');
  });

  it('refuses a task outside allowedTasks exactly like an unknown task, whether or not it is routed', () => {
    expect(() => resolver.resolve('initech', 'sentiment')).toThrow(RouteNotFoundError);
    expect(() => resolver.resolve('initech', 'does-not-exist')).toThrow(RouteNotFoundError);
    expect(() => resolver.resolve('initech', 'sentiment')).toThrow("unknown task 'sentiment'");
    expect(() => resolver.resolve('acme', 'secret')).toThrow(
      expect.objectContaining({ code: 'TASK_NOT_FOUND' }),
    );
  });

  it("answers another tenant's private task exactly like a task that does not exist", () => {
    const errorFor = (task: string) => {
      try {
        resolver.resolve('globex', task);
      } catch (err: unknown) {
        return err;
      }
      return undefined;
    };
    const secret = errorFor('secret');
    const missing = errorFor('missing');
    expect(secret).toBeInstanceOf(RouteNotFoundError);
    expect(missing).toBeInstanceOf(RouteNotFoundError);
    expect((secret as RouteNotFoundError).code).toBe('TASK_NOT_FOUND');
    expect((secret as Error).message.replace('secret', 'X')).toBe(
      (missing as Error).message.replace('missing', 'X'),
    );
  });

  it('treats a tenant missing from the table as unauthenticated', () => {
    expect(() => resolver.resolve('removed', 'intent')).toThrow(UnauthenticatedError);
  });

  it('lists only the tasks a tenant may call, with its effective route', () => {
    expect(resolver.tasksFor('acme').map((r) => [r.task, r.tenant])).toEqual([
      ['intent', 'acme'],
      ['sentiment', '*'],
    ]);
    expect(resolver.tasksFor('globex').map((r) => r.task)).toEqual(['intent', 'sentiment']);
    expect(resolver.tasksFor('initech').map((r) => r.task)).toEqual(['intent']);
    expect(resolver.tasksFor('nobody')).toEqual([]);
  });
});
