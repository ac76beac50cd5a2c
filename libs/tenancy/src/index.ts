export { AdminAuthenticator } from './admin-authenticator';
export { bearerKey, sha256Hex } from './api-key';
export { InFlightLimiter, type InFlightRelease } from './in-flight-limiter';
export { TenantAuthenticator, type RoutingTableSource } from './tenant-authenticator';
export {
  TenantRateLimiter,
  rateLimitWindow,
  type RateLimitDecision,
  type TenantRateLimiterOptions,
} from './tenant-rate-limiter';
