/** Injection tokens for library objects the router module provides. */
export const REDIS = Symbol('REDIS');
export const ROUTES_SUBSCRIBER = Symbol('ROUTES_SUBSCRIBER');
export const JOB_CHANGES_SUBSCRIBER = Symbol('JOB_CHANGES_SUBSCRIBER');
export const PLACEMENT_SUBSCRIBER = Symbol('PLACEMENT_SUBSCRIBER');
export const LOGGER = Symbol('LOGGER');
export const ROUTER_CONFIG = Symbol('ROUTER_CONFIG');
