import { availableParallelism } from 'node:os';
import { Registry } from 'prom-client';
import {
  checkModelSignature,
  declaredMemoryMb,
  memoryParameterKey,
  memoryParameterProblems,
  type ModelConfig,
} from '@mesh/model-repository';
import { HostMetrics } from '../core/host.metrics';
import type { ModelVersionSpec } from '../core/model-spec';
import { ModelVersionRuntime } from '../core/model-version-runtime';
import type { SessionOptionsData } from '../execution/ort-worker-protocol';
import { SessionPoolClient } from '../execution/session-pool-client';
import { batchingPolicyOf } from './batching-policy';
import { BuildMemoryMeter } from './build-memory-meter';
import { findInputBounds } from './input-bounds-finder';
import type { InstanceSplit } from './instance-split';
import type { ModelFiles, ModelFilesRepository } from './model-files.repository';
import {
  checkPlatform,
  decideSplit,
  loneBatchThreads,
  sessionOptions,
  tensorSpecs,
  warmupInputs,
  type SessionDefaults,
} from './model-version-loader';
import { ModelLoadError } from './model-load.errors';
import { readOnnxGraphWiringFile } from './onnx-graph-reader';

/** Told how a version without an instance count was split (one info line per version). */
export type SplitObserver = (split: InstanceSplit & { model: string; version: string }) => void;

/** Told the nice values a version's sessions started with (SessionPoolClient.nice). */
export type NiceObserver = (nice: {
  model: string;
  version: string;
  pool: number;
  worker: number;
}) => void;

/** What building one version needs beyond its model file and config. */
export interface VersionBuildContext {
  defaults: SessionDefaults;
  metrics: HostMetrics;
  /** Measures the build's resident memory; one meter per process serializes builds. */
  meter: BuildMemoryMeter;
  onSplit?: SplitObserver;
  onNice?: NiceObserver;
}

/** `memory_mb_v<N>` of this version; a value that is not a positive number refuses the load. */
function declaredFootprint(config: ModelConfig, version: number): number | undefined {
  const key = memoryParameterKey(version);
  const problem = memoryParameterProblems(config).find((p) => p.includes(`'${key}'`));
  if (problem) throw new ModelLoadError(problem);
  return declaredMemoryMb(config, version);
}

/** Every session of the version (instances and lone-batch), checked and warmed up. */
async function startRuntime(
  config: ModelConfig,
  spec: ModelVersionSpec,
  options: SessionOptionsData,
  loneThreads: number,
  metrics: HostMetrics,
  onNice?: NiceObserver,
): Promise<ModelVersionRuntime> {
  const path = options.modelPath;
  const pool = await SessionPoolClient.start(spec.instances ?? 1, options, loneThreads).catch(
    (err: unknown) => {
      throw new ModelLoadError(
        `cannot create an ORT session for ${path}: ${(err as Error).message}`,
      );
    },
  );
  const problems = checkModelSignature(config, pool.inputs, pool.outputs);
  if (problems.length > 0) {
    await pool.close();
    throw new ModelLoadError(problems.join('; '));
  }
  onNice?.({ model: spec.model, version: spec.version, ...pool.nice });
  const runtime = new ModelVersionRuntime(spec, pool, metrics);
  try {
    await runtime.warmUp(warmupInputs(spec));
  } catch (err: unknown) {
    await pool.close();
    throw new ModelLoadError(`warm-up failed: ${(err as Error).message}`);
  }
  return runtime;
}

/**
 * Builds one version from its model file: split, sessions, signature check, warm-up, with the
 * resident memory that cost measured (`spec.measuredMemoryMb`) and the footprint it is counted
 * at, max(declared memory_mb_v<N>, measured) (`spec.memoryMb`). The host's loads and
 * `mesh model add` both measure through here.
 */
export async function buildModelVersion(
  config: ModelConfig,
  path: string,
  identity: { model: string; version: number; labels?: Record<string, string[]> },
  ctx: VersionBuildContext,
): Promise<ModelVersionRuntime> {
  checkPlatform(config);
  const declared = declaredFootprint(config, identity.version);
  const defaults = ctx.defaults;
  const wiring = await readOnnxGraphWiringFile(path);
  const inputBounds = wiring && findInputBounds(wiring);
  const spec: ModelVersionSpec = {
    ...(inputBounds ? { inputBounds } : {}),
    model: identity.model,
    version: String(identity.version),
    maxBatchSize: config.maxBatchSize,
    inputs: tensorSpecs(config, 'input'),
    outputs: tensorSpecs(config, 'output'),
    batching: batchingPolicyOf(config),
    labels: identity.labels,
  };
  const split = await decideSplit(config, spec, path, defaults);
  if (split.reason !== undefined)
    ctx.onSplit?.({ ...split, model: spec.model, version: spec.version });
  spec.instances = split.instances;
  const options = sessionOptions(config, path, defaults, split.intraOpThreads);
  const lone = loneBatchThreads(config, defaults, split.instances, options.intraOpThreads);
  const { value: runtime, mb } = await ctx.meter.measure(() =>
    startRuntime(config, spec, options, lone, ctx.metrics, ctx.onNice),
  );
  spec.measuredMemoryMb = mb;
  spec.memoryMb = Math.max(declared ?? 0, mb);
  return runtime;
}

/**
 * Loads one version from the repository: file and hash checks, then `buildModelVersion`. On
 * any failure the sessions started so far are closed again.
 */
export async function loadModelVersion(
  repo: ModelFilesRepository,
  files: ModelFiles,
  version: number,
  ctx: VersionBuildContext,
): Promise<ModelVersionRuntime> {
  const { config } = files;
  checkPlatform(config);
  const path = repo.modelFile(files, version);
  if (!(await repo.isFile(path))) throw new ModelLoadError(`model file ${path} does not exist`);
  const pinned = config.parameters[`model_sha256_v${version}`]?.stringValue;
  if (pinned) {
    const actual = await repo.sha256(path);
    if (actual !== pinned.toLowerCase()) {
      throw new ModelLoadError(
        `sha256 of ${path} is ${actual}, but config.pbtxt pins model_sha256_v${version} = ${pinned}`,
      );
    }
  }
  return buildModelVersion(config, path, { model: files.name, version, labels: files.labels }, ctx);
}

/** The host's session settings when the environment sets none, on this machine's cores. */
export function hostSessionDefaults(cores = availableParallelism()): SessionDefaults {
  return {
    intraOpThreads: undefined,
    interOpThreads: 1,
    graphOptimizationLevel: 'all',
    allowSpinning: true,
    loneBatchThreads: undefined,
    cores,
  };
}

/** A version's measured load: its footprint and the sessions it ran. */
export interface VersionFootprint {
  /** Resident MB its sessions added (whole MB, rounded up, at least 1). */
  mb: number;
  instances: number;
}

/**
 * Builds a version as a host with `defaults` would — every instance, the lone-batch session,
 * warm-up — measures the resident memory it adds, and closes it again: what `mesh model add`
 * writes as `memory_mb_v<N>`. A declared value already in the config is left out, so the
 * measurement is fresh.
 */
export async function measureVersionFootprint(
  config: ModelConfig,
  path: string,
  identity: { model: string; version: number },
  defaults: SessionDefaults = hostSessionDefaults(),
): Promise<VersionFootprint> {
  const { [memoryParameterKey(identity.version)]: _declared, ...parameters } = config.parameters;
  const runtime = await buildModelVersion({ ...config, parameters }, path, identity, {
    defaults,
    metrics: new HostMetrics(new Registry()),
    meter: new BuildMemoryMeter(),
  });
  await runtime.drain();
  return { mb: runtime.spec.measuredMemoryMb ?? 1, instances: runtime.spec.instances ?? 1 };
}
