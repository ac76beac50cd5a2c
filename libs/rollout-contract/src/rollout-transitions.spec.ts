import {
  COMMANDS_ACCEPTED,
  TRANSITIONS,
  acceptsCommand,
  canTransition,
} from './rollout-transitions';
import {
  ROLLOUT_STATES,
  isTerminal,
  type OperatorCommandKind,
  type RolloutState,
} from './rollout.types';

/** The state each command moves an accepting rollout to (resume: back where it was paused). */
// `undo` moves nothing: it starts a new rollout (see the test of completed below).
const COMMAND_TARGET: Record<Exclude<OperatorCommandKind, 'resume' | 'undo'>, RolloutState> = {
  pause: 'paused',
  abort: 'aborted',
  promote: 'promoted',
};

describe('rollout transition tables', () => {
  it.each(ROLLOUT_STATES.filter(isTerminal))(
    '%s is left by no move and accepts no command but undo when completed',
    (s) => {
      expect(TRANSITIONS[s]).toEqual([]);
      expect(COMMANDS_ACCEPTED[s]).toEqual(s === 'completed' ? ['undo'] : []);
    },
  );

  it('only a completed rollout can be undone', () => {
    expect(ROLLOUT_STATES.filter((s) => acceptsCommand(s, 'undo'))).toEqual(['completed']);
  });

  it.each(ROLLOUT_STATES.filter((s) => !isTerminal(s)))('%s can be aborted', (s) => {
    expect(acceptsCommand(s, 'abort')).toBe(true);
    expect(canTransition(s, 'aborted')).toBe(true);
  });

  it('every accepted command has its move in TRANSITIONS', () => {
    for (const state of ROLLOUT_STATES) {
      for (const command of COMMANDS_ACCEPTED[state]) {
        if (command === 'resume' || command === 'undo') continue;
        expect([state, command, canTransition(state, COMMAND_TARGET[command])]).toEqual([
          state,
          command,
          true,
        ]);
      }
    }
  });

  it('a paused rollout can resume into every state that can be paused', () => {
    const pausable = ROLLOUT_STATES.filter((s) => acceptsCommand(s, 'pause'));
    expect(pausable.length).toBeGreaterThan(0);
    for (const s of pausable) expect([s, canTransition('paused', s)]).toEqual([s, true]);
  });

  it('every state is reachable from pending', () => {
    const reached = new Set<RolloutState>(['pending']);
    for (const queue: RolloutState[] = ['pending']; queue.length > 0;) {
      for (const next of TRANSITIONS[queue.shift() as RolloutState]) {
        if (!reached.has(next)) queue.push(next);
        reached.add(next);
      }
    }
    expect([...reached].sort()).toEqual([...ROLLOUT_STATES].sort());
  });
});
