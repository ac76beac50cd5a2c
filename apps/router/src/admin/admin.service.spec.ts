import {
  RouteEditRejectedError,
  type Route,
  type RouteProblem,
  type RoutingTableCache,
  type RoutingTableRepository,
} from '@mesh/routing';
import { ERROR_TABLE } from '@mesh/errors';
import type { Logger } from 'pino';
import type { RouteSelector } from '../catalog/route-selector';
import { AdminService } from './admin.service';
import type { RouteEditChecker } from './route-edit.check';
import { canaryRoute } from '../../../../libs/routing/src/testing/routing-fixtures';

const route = canaryRoute({ task: 't', model: 'm' });

function serviceWith(problems: RouteProblem[]) {
  const writes: Route[] = [];
  const repository = {
    upsertRoute: async (r: Route) => {
      writes.push(r);
      return { epoch: 2, changed: true };
    },
  } as unknown as RoutingTableRepository;
  const cache = { refresh: async () => undefined } as unknown as RoutingTableCache;
  const checker = {
    problems: async () => problems,
    unroutable: async () => ({}),
  } as unknown as RouteEditChecker;
  const logger = { info: () => undefined, warn: () => undefined } as unknown as Logger;
  const service = new AdminService(repository, cache, {} as RouteSelector, {
    meshConfigFile: 'unused',
    actor: 'admin',
    logger,
    checker,
  });
  return { service, writes };
}

const tooLarge: RouteProblem = {
  code: 'MODEL_TOO_LARGE',
  path: 'versions[1].weight',
  model: 'm',
  version: 2,
  message:
    "version 2 of model 'm' needs 900 MB (memory_mb_v2), more than the largest backend budget (512 MB)",
};

describe('AdminService route edits: versions too large to place', () => {
  it('refuses with 422 MODEL_TOO_LARGE naming the footprint, force or not, writing nothing', async () => {
    for (const force of [false, true]) {
      const { service, writes } = serviceWith([tooLarge]);
      const err = await service.upsertRoute(route, undefined, force).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(RouteEditRejectedError);
      expect((err as RouteEditRejectedError).code).toBe('MODEL_TOO_LARGE');
      expect(ERROR_TABLE.MODEL_TOO_LARGE.http).toBe(422);
      expect((err as Error).message).toContain('needs 900 MB (memory_mb_v2)');
      expect(writes).toEqual([]);
    }
  });

  it('answers MODEL_TOO_LARGE first and still lists the other problems', async () => {
    const other: RouteProblem = {
      code: 'UNKNOWN_VERSION',
      path: 'versions[0].version',
      model: 'm',
      version: 1,
      message: "model 'm' has no version 1 in the model repository",
    };
    const { service } = serviceWith([other, tooLarge]);
    const err = (await service
      .upsertRoute(route)
      .catch((e: unknown) => e)) as RouteEditRejectedError;
    expect(err.code).toBe('MODEL_TOO_LARGE');
    expect(err.problems.map((p) => p.code)).toEqual(['MODEL_TOO_LARGE', 'UNKNOWN_VERSION']);
  });
});
