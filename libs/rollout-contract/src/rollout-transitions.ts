import { FORWARD_STATES, type OperatorCommandKind, type RolloutState } from './rollout.types';

/**
 * The rollout state machine: the states each state may move to. The coordinator's machine
 * refuses any other move. Operator commands add `paused` (pause, or a failed gate with
 * `onFailure: pause`), `promoted` (promote) and `aborted` (abort) where they are accepted.
 */
export const TRANSITIONS = {
  pending: ['loading', 'paused', 'aborted'],
  loading: ['waiting_for_window', 'failed', 'paused', 'aborted'],
  waiting_for_window: ['warming', 'shadow', 'canary', 'paused', 'promoted', 'aborted'],
  warming: ['shadow', 'canary', 'rolling_back', 'paused', 'promoted', 'aborted'],
  shadow: ['canary', 'rolling_back', 'paused', 'promoted', 'aborted'],
  // canary → canary is the next step; draining → draining records a wait for pinned bulk jobs.
  canary: ['canary', 'baking', 'rolling_back', 'paused', 'promoted', 'aborted'],
  baking: ['promoted', 'rolling_back', 'paused', 'aborted'],
  promoted: ['draining', 'promoted', 'paused', 'aborted'],
  draining: ['draining', 'completed', 'paused', 'promoted', 'aborted'],
  completed: [],
  // A paused rollout resumes where it was: any state of its way forward.
  paused: [...FORWARD_STATES, 'aborted'],
  rolling_back: ['rolled_back', 'aborted'],
  rolled_back: [],
  aborted: [],
  failed: [],
} as const satisfies Record<RolloutState, readonly RolloutState[]>;

/**
 * The operator commands each state accepts; the API answers 409 INVALID_COMMAND to any other.
 * Nothing pauses or promotes a rollback in progress, and promote needs the version loaded.
 * Only a completed rollout can be undone (a new rollout back to its previous weights); a
 * rolled-back or aborted one already left the previous weights in place.
 */
export const COMMANDS_ACCEPTED = {
  pending: ['pause', 'abort'],
  loading: ['pause', 'abort'],
  waiting_for_window: ['pause', 'abort', 'promote'],
  warming: ['pause', 'abort', 'promote'],
  shadow: ['pause', 'abort', 'promote'],
  canary: ['pause', 'abort', 'promote'],
  baking: ['pause', 'abort', 'promote'],
  promoted: ['pause', 'abort', 'promote'],
  draining: ['pause', 'abort', 'promote'],
  completed: ['undo'],
  paused: ['resume', 'abort', 'promote'],
  rolling_back: ['abort'],
  rolled_back: [],
  aborted: [],
  failed: [],
} as const satisfies Record<RolloutState, readonly OperatorCommandKind[]>;

export function canTransition(from: RolloutState, to: RolloutState): boolean {
  return (TRANSITIONS[from] as readonly RolloutState[]).includes(to);
}

export function acceptsCommand(state: RolloutState, command: OperatorCommandKind): boolean {
  return (COMMANDS_ACCEPTED[state] as readonly OperatorCommandKind[]).includes(command);
}
