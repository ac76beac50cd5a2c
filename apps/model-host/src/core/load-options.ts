import { InvalidInferenceError } from './model-host.errors';

/** What a repository load may carry besides the model name (Triton's load parameters). */
export interface LoadOptions {
  /** A JSON ModelConfig used instead of config.pbtxt's fields. */
  config?: string;
}

export type LoadParameterValue = string | number | boolean | Uint8Array | undefined;

/**
 * Reads a load request's parameters, the same for HTTP and gRPC. `config` is the one the host
 * supports; Triton's `file:<path>` model overrides and anything else are refused by name.
 */
export function loadOptionsFrom(params: Record<string, LoadParameterValue>): LoadOptions {
  const options: LoadOptions = {};
  for (const [key, value] of Object.entries(params)) {
    if (key === 'config') {
      if (typeof value !== 'string') {
        throw new InvalidInferenceError(
          "load parameter 'config' must be a string holding a JSON ModelConfig",
        );
      }
      options.config = value;
    } else if (key.startsWith('file:')) {
      throw new InvalidInferenceError(
        `load parameter '${key}': model file overrides are not supported by the embedded host`,
      );
    } else {
      throw new InvalidInferenceError(
        `unsupported load parameter '${key}': the embedded host takes 'config'`,
      );
    }
  }
  return options;
}

/**
 * Unload parameters: Triton's `unload_dependents` concerns ensembles; the host serves none, so
 * either value unloads just the model. Anything else is refused by name.
 */
export function checkUnloadParameters(params: Record<string, LoadParameterValue>): void {
  for (const [key, value] of Object.entries(params)) {
    if (key === 'unload_dependents' && typeof value === 'boolean') continue;
    throw new InvalidInferenceError(
      key === 'unload_dependents'
        ? "unload parameter 'unload_dependents' must be a boolean"
        : `unsupported unload parameter '${key}': the embedded host takes 'unload_dependents'`,
    );
  }
}
