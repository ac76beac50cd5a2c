export { AdminAuthenticator } from './admin-authenticator';
export { bearerKey, sha256Hex } from './api-key';
export { InFlightLimiter, type InFlightRelease } from './in-flight-limiter';
export { parseMeshConfig, readMeshConfigFile } from './mesh-config.parser';
export { RouteResolver, type ResolvedRoute } from './route-resolver';
export {
  RoutingTableCache,
  type RoutingLogger,
  type RoutingTableCacheOptions,
  type RoutingTableListener,
} from './routing-table.cache';
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
export { TenantAuthenticator, type RoutingTableSource } from './tenant-authenticator';
export {
  TenantRateLimiter,
  rateLimitWindow,
  type RateLimitDecision,
  type TenantRateLimiterOptions,
} from './tenant-rate-limiter';
export {
  WeightedVersionPicker,
  type PickOptions,
  type PickedVersion,
} from './weighted-version-picker';
export { histogramQuantile, latencyBucket, LATENCY_BOUNDS_MS } from './latency-histogram';
export {
  PrometheusTrafficSignalSource,
  buildSignalQueries,
  type PrometheusTrafficSignalSourceOptions,
  type SignalQueries,
} from './prometheus-traffic-signal.source';
export {
  RedisTrafficSignalSource,
  type RedisTrafficSignalSourceOptions,
  type VersionRequests,
} from './redis-traffic-signal.source';
export {
  RouterHeartbeatRepository,
  routeBlockReason,
  type RouterHeartbeatRepositoryOptions,
} from './router-heartbeat.repository';
export type {
  CanAllRouteResult,
  ModelVersionRef,
  RouteBlocker,
  RouterHeartbeat,
} from './router-heartbeat.types';
export {
  TrafficSignalRecorder,
  type ShadowSample,
  type TrafficSample,
  type TrafficSignalRecorderOptions,
} from './traffic-signal.recorder';
export {
  VERSION_ERROR_CODES,
  isVersionError,
  versionErrors,
  type ShadowAgreement,
  type ShadowAgreementSource,
  type TrafficSignalQuery,
  type TrafficSignalSource,
  type TrafficVersionRef,
  type TrafficVersionsSource,
  type VersionSignals,
} from './traffic-signal.types';
export {
  RouteEditValidator,
  type RouteEditValidatorOptions,
  type RouteProblem,
  type RouteProblemCode,
} from './route-edit.validator';
