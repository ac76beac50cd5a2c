export { PlacementKeys, parseVersionKey, versionKey } from './placement.keys';
export { MEMORY_BUDGET_EXTENSION, budgetFromExtensions } from './memory-footprint';
export { PlacementDemand, type PendingDemand } from './placement-demand';
export type {
  BackendLedger,
  PlacementAction,
  PlacementDecision,
  PlacementDemandEntry,
  PlacementReason,
  ResidentVersion,
} from './placement.types';
export { PlacementLedgerReader, tooLargeReason } from './placement-ledger-reader';
export { AUDIT_MAX_ENTRIES, PlacementAudit } from './placement-audit';
