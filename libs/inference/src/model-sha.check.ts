import type { ModelConfigMessage } from '@mesh/kserve';

/**
 * What a backend's ModelConfig says about the bytes it serves for one version: the
 * `model_sha256_v<version>` parameter, or `model_sha256` when the config names a single
 * version's bytes. Undefined when the config names none.
 */
export function servedSha256(config: ModelConfigMessage, version: number): string | undefined {
  const params = config.parameters ?? {};
  const value =
    params[`model_sha256_v${version}`]?.string_value ?? params.model_sha256?.string_value;
  return value ? value.trim().toLowerCase() : undefined;
}

/** Undefined when the backend provably serves the manifest's bytes, else why not. */
export function shaMismatch(
  backend: string,
  config: ModelConfigMessage,
  model: string,
  version: number,
  expected: string,
): string | undefined {
  const served = servedSha256(config, version);
  if (served === undefined) {
    return `backend ${backend} does not declare model_sha256_v${version} for ${model}, so its bytes cannot be checked against preprocess.json`;
  }
  if (served !== expected) {
    return `model sha256 mismatch: backend ${backend} serves ${model} v${version} with sha256 ${served}, but preprocess.json pins ${expected}`;
  }
  return undefined;
}
