import {
  TRANSITIONS,
  canTransition,
  roundMetrics,
  type RolloutState,
  type TransitionMetrics,
} from '@mesh/rollout-contract';
import type { RolloutRecord } from './rollout.types';

/**
 * Moves `r` to `to` at `now` and records why in its timeline. A move the transition table does
 * not list is a bug in the machine, not an operator's mistake (commands are checked against
 * COMMANDS_ACCEPTED before they get here), so it throws a plain Error: no domain code, never
 * shown as a 409, and the record stays unsaved in its last good state.
 */
export function move(
  r: RolloutRecord,
  to: RolloutState,
  now: number,
  reason: string,
  metrics?: TransitionMetrics,
): true {
  const from = r.state;
  if (!canTransition(from, to)) {
    const allowed = TRANSITIONS[from].join(', ') || 'nothing (terminal)';
    throw new Error(`rollout ${r.id}: no transition ${from} → ${to}; ${from} allows ${allowed}`);
  }
  r.timeline.push({
    at: new Date(now).toISOString(),
    from,
    to,
    step: r.step,
    reason,
    // Rounded here, once, so the API, the dashboard and the CLI show the same readable values.
    ...(metrics && Object.keys(metrics).length > 0 ? { metrics: roundMetrics(metrics) } : {}),
  });
  r.state = to;
  r.enteredAt = now;
  return true;
}

/** A failed gate: pause where it stands or roll back, as the plan's `onFailure` says. */
export function fail(
  r: RolloutRecord,
  now: number,
  reason: string,
  metrics: TransitionMetrics,
): true {
  if (r.plan.onFailure === 'pause') {
    r.pausedFrom = { state: r.state, step: r.step };
    return move(r, 'paused', now, reason, metrics);
  }
  return move(r, 'rolling_back', now, reason, metrics);
}
