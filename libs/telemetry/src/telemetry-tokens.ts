/** DI token of the process's prom-client Registry. */
export const METRICS_REGISTRY = Symbol('METRICS_REGISTRY');
/** DI token of the readiness checks an app contributes (an array of ReadinessCheck). */
export const READINESS_CHECKS = Symbol('READINESS_CHECKS');
/** DI token of the admin-key check `AdminKeyGuard` asks (an `AdminKeyVerifier`). */
export const ADMIN_AUTHENTICATOR = Symbol('ADMIN_AUTHENTICATOR');
