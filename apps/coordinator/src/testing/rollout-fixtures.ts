import type { RolloutPlan } from '@mesh/rollout-contract';
import type { Route, VersionWeight } from '@mesh/routing';
import { RolloutMachine } from '../rollout/rollout-machine';
import type { RolloutPorts } from '../rollout/rollout-ports';
import type { RolloutMachineOptions, RolloutRecord } from '../rollout/rollout.types';
import { FakeClock, FakeMesh } from './fake-mesh';

/** 02:00 UTC: outside the usual test windows (03:00 Asia/Shanghai is 19:00 UTC). */
export const T0 = Date.parse('2026-12-01T02:00:00Z');
export const MODEL = 'question-type-zh';

/** The default route of `question-type`, all on version 1 unless told otherwise. */
export function questionTypeRoute(
  versions: VersionWeight[] = [{ version: 1, weight: 100 }],
): Route {
  return { tenant: '*', task: 'question-type', model: MODEL, versions };
}

/** A fake mesh with that route, every backend serving `served` of the model. */
export function meshWithRoute(versions?: VersionWeight[], served: number[] = [1]): FakeMesh {
  const mesh = new FakeMesh();
  mesh.routes = [questionTypeRoute(versions)];
  for (const models of mesh.backends.values()) models.set(MODEL, [...served]);
  return mesh;
}

/** The smallest plan body a client may send: question-type to version 2 in two 5 s steps. */
export const MINIMAL_PLAN_BODY = {
  task: 'question-type',
  model: MODEL,
  toVersion: 2,
  steps: [
    { weight: 10, holdSeconds: 5 },
    { weight: 100, holdSeconds: 5 },
  ],
};

/** Version 1 → 2 of question-type in three held steps (10/50/100 %), gated, rolling back. */
export function rolloutPlan(overrides: Partial<RolloutPlan> = {}): RolloutPlan {
  return {
    tenant: '*',
    task: 'question-type',
    model: MODEL,
    toVersion: 2,
    steps: [
      { weight: 10, holdSeconds: 60 },
      { weight: 50, holdSeconds: 60 },
      { weight: 100, holdSeconds: 60 },
    ],
    bakeSeconds: 120,
    gates: { maxErrorRate: 0.01, maxP99Ratio: 2, minRequests: 10 },
    onFailure: 'rollback',
    ...overrides,
  };
}

/**
 * The question-type route after each step of a 10/50/100 % rollout from version 1 to 2 and after
 * its clean-up: what the route store is asked to commit, in order.
 */
export const TEN_FIFTY_HUNDRED_ROUTES: VersionWeight[][] = [
  [
    { version: 1, weight: 90 },
    { version: 2, weight: 10 },
  ],
  [
    { version: 1, weight: 50 },
    { version: 2, weight: 50 },
  ],
  [
    { version: 1, weight: 0 },
    { version: 2, weight: 100 },
  ],
  [{ version: 2, weight: 100 }],
];

/** A pending rollout of `rolloutPlan()` created at T0; `plan` overrides merge into that plan. */
export function rolloutRecord(
  overrides: Partial<Omit<RolloutRecord, 'plan'>> & { plan?: Partial<RolloutPlan> } = {},
): RolloutRecord {
  const { plan, ...rest } = overrides;
  return {
    id: 'ro-1',
    plan: rolloutPlan(plan),
    state: 'pending',
    step: 0,
    fromVersions: [{ version: 1, weight: 100 }],
    weights: [{ version: 1, weight: 100 }],
    appliedEpoch: 0,
    createdAt: T0,
    enteredAt: T0,
    timeline: [],
    rev: 1,
    ...rest,
  };
}

/** The real machine over the fake mesh; `ports` replaces any of them (a real route store, pins). */
export function machineWith(
  mesh: FakeMesh,
  clock: FakeClock = new FakeClock(T0),
  ports: Partial<RolloutPorts> = {},
  options: Partial<RolloutMachineOptions> = {},
): RolloutMachine {
  return new RolloutMachine(
    {
      clock,
      routes: mesh,
      backends: mesh,
      routers: mesh,
      signals: mesh,
      catalog: mesh,
      warmer: mesh,
      desired: mesh,
      ...ports,
    },
    { loadSampleMs: 10_000, loadTimeoutMs: 300_000, ...options },
  );
}
