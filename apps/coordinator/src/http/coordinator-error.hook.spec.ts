import { NotFoundException } from '@nestjs/common';
import {
  AdminForbiddenError,
  EpochConflictError,
  FencedWriteError,
  RouteEditRejectedError,
  RoutingTableMissingError,
  RoutingValidationError,
  UnauthenticatedError,
} from '@mesh/routing';
import { JobNotFoundError } from '@mesh/jobs';
import {
  InvalidCommandError,
  InvalidPlanError,
  PlanRejectedError,
  RolloutConflictError,
  RolloutNotFoundError,
} from '../rollout/rollout.errors';
import { coordinatorErrorReply } from './coordinator-error.hook';

describe('coordinator error replies', () => {
  it.each([
    [new InvalidPlanError([{ path: 'steps', message: 'x' }]), 400, 'INVALID_PLAN'],
    [new UnauthenticatedError(), 401, 'UNAUTHENTICATED'],
    [new AdminForbiddenError(), 403, 'ADMIN_FORBIDDEN'],
    [new RolloutNotFoundError('x'), 404, 'ROLLOUT_NOT_FOUND'],
    [new NotFoundException(), 404, 'NOT_FOUND'],
    [new RolloutConflictError('*', 't', 'ro-1'), 409, 'ROLLOUT_CONFLICT'],
    [new InvalidCommandError('resume', 'canary'), 409, 'INVALID_COMMAND'],
    [new EpochConflictError(1, 2), 409, 'EPOCH_CONFLICT'],
    [new FencedWriteError(3), 409, 'FENCED'],
    [new PlanRejectedError([{ path: 'model', message: 'unknown' }]), 422, 'PLAN_REJECTED'],
    [
      new RouteEditRejectedError([
        { code: 'UNKNOWN_VERSION', path: 'versions[0].version', message: 'no version 9' },
      ]),
      422,
      'UNKNOWN_VERSION',
    ],
    [new RoutingValidationError('weights edit', []), 400, 'INVALID_ROUTING_CONFIG'],
    [new JobNotFoundError('j1'), 404, 'JOB_NOT_FOUND'],
    // Not seeded yet is "not ready", as on the router (this edge answered 404 before).
    [new RoutingTableMissingError(), 503, 'ROUTING_TABLE_MISSING'],
    [Object.assign(new Error('bad json'), { statusCode: 400 }), 400, 'INVALID_JSON'],
    [new Error('boom'), 500, 'INTERNAL'],
  ])('%s → %i %s', (err, status, code) => {
    const reply = coordinatorErrorReply(err);
    expect(reply.status).toBe(status);
    expect(reply.body.error.code).toBe(code);
  });

  it('lists plan issues as details and never leaks internal messages', () => {
    const reply = coordinatorErrorReply(
      new PlanRejectedError([{ path: 'toVersion', message: 'version 9 missing' }]),
    );
    expect(reply.body.error.details).toEqual({
      issues: [{ path: 'toVersion', message: 'version 9 missing' }],
    });
    expect(coordinatorErrorReply(new Error('secret path /x')).body.error.message).toBe(
      'internal error',
    );
  });

  it.each([
    new Error('Command timed out'),
    new Error('Connection is closed.'),
    new Error('Failed to refresh slots cache.'),
    new Error("READONLY You can't write against a read only replica."),
  ])('a store that does not answer (%s) is 503 STORE_UNAVAILABLE with Retry-After', (err) => {
    const reply = coordinatorErrorReply(err);
    expect(reply).toMatchObject({
      status: 503,
      body: {
        error: {
          code: 'STORE_UNAVAILABLE',
          message: 'the rollout store (Redis) is unreachable; retry this call later',
        },
      },
      retryAfterSeconds: 5,
    });
  });
});
