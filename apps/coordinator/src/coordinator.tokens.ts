/** Nest injection tokens of the coordinator's plain (non-Nest) collaborators. */
export const REDIS_CLIENT = Symbol('REDIS_CLIENT');
export const COORDINATOR_LOGGER = Symbol('COORDINATOR_LOGGER');
