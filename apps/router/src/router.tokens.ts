/** Injection tokens for library objects the router module provides. */
export const REDIS = Symbol('REDIS');
export const LOGGER = Symbol('LOGGER');
