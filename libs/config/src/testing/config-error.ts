import { ConfigError } from '../config.errors';

/** The ConfigError that `load` throws; the test fails if it throws anything else, or nothing. */
export function configErrorOf(load: () => unknown): ConfigError {
  let error: unknown;
  try {
    load();
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(ConfigError);
  return error as ConfigError;
}
