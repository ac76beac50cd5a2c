export { parseMeshConfig, readMeshConfigFile } from './mesh-config.parser';
export { RouteResolver, type ResolvedRoute } from './route-resolver';
export {
  RoutingTableCache,
  type RoutingLogger,
  type RoutingTableCacheOptions,
  type RoutingTableListener,
} from './routing-table-cache';
export {
  RoutingTableRepository,
  type ChangeOptions,
  type ChangeResult,
  type Fence,
  type RoutingTableRepositoryOptions,
  type SeedResult,
} from './routing-table.repository';
export { describeSeed, seedFromMeshConfig, type SeedFromFileOptions } from './routing-seed';
export {
  formatPath,
  parseRoute,
  parseRoutingTableData,
  parseTenant,
  routeSchema,
  tenantSchema,
} from './routing-table.schema';
export {
  AdminForbiddenError,
  EpochConflictError,
  FencedWriteError,
  NoRoutableVersionError,
  RateLimitedError,
  RouteEditRejectedError,
  RouteNotFoundError,
  RoutingEntryNotFoundError,
  RoutingTableMissingError,
  RoutingValidationError,
  TooManyInFlightError,
  UnauthenticatedError,
  type RoutingIssue,
  type UnroutableReason,
} from './routing.errors';
export { routingKeys, type RoutingKeys } from './routing.keys';
export {
  ANY,
  type AuditAction,
  type AuditEntry,
  type Route,
  type RouteCacheConfig,
  type RoutingTable,
  type RoutingTableData,
  type ShadowConfig,
  type Tenant,
  type TenantJobQuota,
  type TenantRateLimit,
  type VersionWeight,
} from './routing.types';
export { stickyFraction } from './sticky-hash';
export {
  WeightedVersionPicker,
  type PickOptions,
  type PickedVersion,
} from './weighted-version-picker';
export {
  RouteEditValidator,
  type RouteEditValidatorOptions,
  type RouteProblem,
  type RouteProblemCode,
} from './route-edit.check';
