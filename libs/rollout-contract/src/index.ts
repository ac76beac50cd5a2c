export {
  COMMANDS_ACCEPTED,
  TRANSITIONS,
  acceptsCommand,
  canTransition,
} from './rollout-transitions';
export { roundForPeople, roundMetrics } from './rollout-numbers';
export {
  OPERATOR_COMMANDS,
  ROLLOUT_STATES,
  TERMINAL_STATES,
  isOperatorCommand,
  isTerminal,
  type FailurePolicy,
  type GateSpec,
  type LowLoadSpec,
  type OperatorCommandKind,
  type RolloutPlan,
  type RolloutState,
  type RolloutStep,
  type RolloutView,
  type RolloutWeight,
  type RolloutWindowSpec,
  type ShadowSpec,
  type TimelineEntry,
  type TransitionMetrics,
} from './rollout.types';
export { RolloutKeys } from './rollout.keys';
