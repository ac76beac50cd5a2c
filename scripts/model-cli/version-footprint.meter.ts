import type { ModelConfig } from '@mesh/model-repository';
import {
  hostSessionDefaults,
  measureVersionFootprint,
  type VersionFootprint,
} from '../../apps/model-host/src/repository/model-version.builder';
import { ModelCliError } from './model-cli.errors';

/**
 * The resident memory a version costs once served, measured by loading it as the model host
 * does (its own loader: every instance and the lone-batch session, warmed up) on this machine's
 * cores, then closing it. Written as `memory_mb_v<N>`, it is what placers add up against a
 * backend's budget before the version was ever loaded there; a host that measures more on its
 * own cores counts the larger value.
 */
export async function measureFootprint(
  config: ModelConfig,
  modelPath: string,
  model: string,
  version: number,
): Promise<VersionFootprint> {
  try {
    // Errors only, as the CLI's other sessions: graph-cleanup warnings are noise to a publisher.
    const defaults = { ...hostSessionDefaults(), logSeverityLevel: 3 as const };
    return await measureVersionFootprint(config, modelPath, { model, version }, defaults);
  } catch (err: unknown) {
    throw new ModelCliError(
      'VALIDATION_FAILED',
      `${model}/${version} could not be loaded as the model host loads it to measure its memory; nothing was written: ${(err as Error).message}`,
    );
  }
}
