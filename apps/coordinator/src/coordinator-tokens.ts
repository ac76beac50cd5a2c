/** Nest injection tokens of the coordinator's plain (non-Nest) collaborators. */
export const REDIS_CLIENT = Symbol('REDIS_CLIENT');
export const HEALTH_REDIS = Symbol('HEALTH_REDIS');
export const COORDINATOR_LOGGER = Symbol('COORDINATOR_LOGGER');
export const COORDINATOR_CONFIG = Symbol('COORDINATOR_CONFIG');
export const CLOCK = Symbol('CLOCK');
export const KSERVE_CLIENTS = Symbol('KSERVE_CLIENTS');
export const ROLLOUT_PORTS = Symbol('ROLLOUT_PORTS');
export const PLACEMENT_SUBSCRIBER = Symbol('PLACEMENT_SUBSCRIBER');
