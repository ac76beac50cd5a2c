import {
  OPERATOR_COMMANDS,
  ROLLOUT_STATES,
  TRANSITIONS,
  acceptsCommand,
  type OperatorCommandKind,
  type RolloutState,
} from '@mesh/rollout-contract';
import { FakeClock } from '../testing/fake-mesh';
import { T0, machineWith, meshWithRoute, rolloutRecord } from '../testing/rollout-fixtures';
import { move } from './rollout-transition';

const pairs = <A, B>(as: readonly A[], bs: readonly B[]): [A, B][] =>
  as.flatMap((a) => bs.map((b): [A, B] => [a, b]));

/** Where the machine takes a rollout in `state` that carries out `command`. */
function target(state: RolloutState, command: OperatorCommandKind): RolloutState {
  if (command === 'pause') return 'paused';
  if (command === 'abort') return 'aborted';
  if (command === 'promote') return 'promoted';
  return state === 'paused' ? 'canary' : state; // resumed where it was paused (below: canary)
}

describe('rollout transitions as data', () => {
  it.each(pairs(ROLLOUT_STATES, ROLLOUT_STATES))(
    'move %s → %s succeeds exactly when TRANSITIONS lists it',
    (from, to) => {
      const r = rolloutRecord({ state: from, step: 1 });
      const listed = (TRANSITIONS[from] as readonly RolloutState[]).includes(to);
      if (listed) {
        expect(move(r, to, T0 + 1000, 'test')).toBe(true);
        expect(r.state).toBe(to);
        expect(r.timeline).toEqual([
          { at: new Date(T0 + 1000).toISOString(), from, to, step: 1, reason: 'test' },
        ]);
      } else {
        expect(() => move(r, to, T0 + 1000, 'test')).toThrow(`no transition ${from} → ${to}`);
        expect([r.state, r.timeline]).toEqual([from, []]);
      }
    },
  );

  // `undo` is never queued: the service starts a new rollout (rollout.service.int-spec.ts).
  const queued = OPERATOR_COMMANDS.filter((c) => c !== 'undo');

  it.each(pairs(ROLLOUT_STATES, queued))(
    'the machine carries out a queued command in %s → %s exactly when COMMANDS_ACCEPTED lists it',
    async (state, command) => {
      const clock = new FakeClock(T0 + 60_000);
      const machine = machineWith(meshWithRoute(), clock);
      const record = rolloutRecord({
        state,
        step: 1,
        ...(state === 'paused' ? { pausedFrom: { state: 'canary', step: 1 } } : {}),
        command: { kind: command, at: T0 },
      });
      const next = await machine.advance(record);
      if (acceptsCommand(state, command)) {
        expect(next.state).toBe(target(state, command));
        expect(next.timeline.at(-1)).toMatchObject({ from: state, to: target(state, command) });
        expect(next.command).toBeUndefined();
      } else {
        // Terminal records are left alone; otherwise a stale command is dropped.
        expect([next.state, next.timeline]).toEqual([state, []]);
      }
    },
  );
});
