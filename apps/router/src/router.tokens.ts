/** Injection tokens for library objects the router module provides. */
export const REDIS = Symbol('REDIS');
export const ADMIN_AUTHENTICATOR = Symbol('ADMIN_AUTHENTICATOR');
export const LOGGER = Symbol('LOGGER');
