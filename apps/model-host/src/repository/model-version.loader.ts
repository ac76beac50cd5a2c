import { ELEMENT_BYTES, configTypeToDatatype } from '@mesh/kserve';
import type { ModelConfig } from '@mesh/model-repository';
import { assembleBatch } from '../batching/batch-assembler';
import type { HostMetrics } from '../core/host.metrics';
import { HostError } from '../core/model-host.errors';
import type { HostTensor } from '../core/inference.types';
import { ModelVersionRuntime } from '../core/model-version.runtime';
import type { ModelVersionSpec, TensorSpec } from '../core/model-spec';
import { ORT_TYPE_OF, type SessionOptionsData } from '../execution/ort-worker.protocol';
import { SessionPoolClient } from '../execution/session-pool.client';
import { batchingPolicyOf } from './batching-policy';
import { findInputBounds } from './input-bounds.finder';
import {
  chooseInstanceSplit,
  configuredInstances,
  splitForThreads,
  type InstanceSplit,
} from './instance-split';
import type { ModelFiles, ModelFilesRepository } from './model-files.repository';
import { checkModelSignature } from './model-signature.check';

export const SUPPORTED_PLATFORM = 'onnxruntime_onnx';
export const UNSUPPORTED_PLATFORM_REASON =
  'served by Triton; the embedded host runs onnxruntime_onnx';

/** Session defaults from the environment; config.pbtxt parameters override them per model. */
export interface SessionDefaults {
  /** undefined: the cores this process may use ÷ the version's instance count (at least 1). */
  intraOpThreads: number | undefined;
  interOpThreads: number;
  graphOptimizationLevel: SessionOptionsData['graphOptimizationLevel'];
  allowSpinning: boolean;
  /**
   * Intra-op threads of the lone-batch session; 0 = none; undefined: every core when the version
   * runs several instances whose sessions each get fewer threads than that.
   */
  loneBatchThreads?: number;
  /** os.availableParallelism() (respects taskset/cgroup CPU affinity, unlike cpus().length). */
  cores: number;
}

/** Intra-op threads per session when neither the environment nor config.pbtxt sets them. */
export function defaultIntraOpThreads(cores: number, instances: number): number {
  return Math.max(1, Math.floor(cores / Math.max(1, instances)));
}

/**
 * The lone-batch session's threads when neither the environment nor config.pbtxt sets them:
 * instances split the cores for throughput, so a batch that runs alone would use only its
 * instance's share; one extra session with every core serves it instead. One instance that
 * already has every core needs none.
 */
export function defaultLoneBatchThreads(
  cores: number,
  instances: number,
  intraOpThreads: number,
): number {
  return instances > 1 && intraOpThreads < cores ? cores : 0;
}

/** A load that failed for a reason an operator can act on (shown in the repository index). */
export class ModelLoadError extends HostError {
  constructor(message: string) {
    super('INVALID_ARGUMENT', message);
  }
}

const LEVELS = ['disabled', 'basic', 'extended', 'all'] as const;

function tensorSpecs(config: ModelConfig, which: 'input' | 'output'): TensorSpec[] {
  return config[which].map((t) => {
    const datatype = configTypeToDatatype(t.dataType);
    if (!datatype || datatype === 'BYTES') {
      throw new ModelLoadError(
        `${which} '${t.name}': data_type ${t.dataType} is not supported by the embedded host`,
      );
    }
    return { name: t.name, datatype, dims: t.dims };
  });
}

/** Checks the platform before anything is started. */
export function checkPlatform(config: ModelConfig): void {
  const ok =
    config.platform === SUPPORTED_PLATFORM ||
    (config.platform === '' && config.backend === 'onnxruntime');
  if (!ok) throw new ModelLoadError(UNSUPPORTED_PLATFORM_REASON);
}

function intParameter(config: ModelConfig, k: string): number | undefined {
  const v = config.parameters[k]?.stringValue;
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0)
    throw new ModelLoadError(`parameter '${k}' must be an integer >= 0 (got "${v}")`);
  return n;
}

/** Intra-op threads set explicitly: config's intra_op_thread_count (0 = unset), else the environment. */
function explicitIntraOpThreads(config: ModelConfig, d: SessionDefaults): number | undefined {
  return intParameter(config, 'intra_op_thread_count') || d.intraOpThreads;
}

function sessionOptions(
  config: ModelConfig,
  path: string,
  d: SessionDefaults,
  intraOpThreads: number,
): SessionOptionsData {
  const p = (k: string): string | undefined => config.parameters[k]?.stringValue;
  // 0 means "the default", as in Triton's ORT backend.
  const int = (k: string, fallback: number): number => intParameter(config, k) || fallback;
  const level = p('graph_optimization_level') ?? d.graphOptimizationLevel;
  if (!(LEVELS as readonly string[]).includes(level)) {
    throw new ModelLoadError(
      `parameter 'graph_optimization_level' must be one of ${LEVELS.join(', ')} (got "${level}")`,
    );
  }
  const spinning = p('allow_spinning');
  if (spinning !== undefined && !['0', '1', 'false', 'true'].includes(spinning)) {
    throw new ModelLoadError(
      `parameter 'allow_spinning' must be one of 0, 1, false, true (got "${spinning}")`,
    );
  }
  return {
    modelPath: path,
    intraOpThreads,
    interOpThreads: int('inter_op_thread_count', d.interOpThreads),
    graphOptimizationLevel: level as SessionOptionsData['graphOptimizationLevel'],
    allowSpinning:
      spinning === undefined ? d.allowSpinning : spinning === '1' || spinning === 'true',
  };
}

/** `lone_batch_threads` (0 turns the lone-batch session off), else the environment or the default. */
function loneBatchThreads(
  config: ModelConfig,
  d: SessionDefaults,
  instances: number,
  intraOpThreads: number,
): number {
  return (
    intParameter(config, 'lone_batch_threads') ??
    d.loneBatchThreads ??
    defaultLoneBatchThreads(d.cores, instances, intraOpThreads)
  );
}

/** A zero-filled request of batch 1 (variable dims set to 8) to warm the sessions. */
function warmupInputs(spec: ModelVersionSpec): HostTensor[] {
  return spec.inputs.map((t) => {
    const shape = [...(spec.maxBatchSize > 0 ? [1] : []), ...t.dims.map((d) => (d < 0 ? 8 : d))];
    const bytes = shape.reduce((a, b) => a * b, 1) * ELEMENT_BYTES[t.datatype];
    return { name: t.name, datatype: t.datatype, shape, data: new Uint8Array(bytes) };
  });
}

/** Warm-up runs before timing, and timed runs (the fastest counts: the least disturbed). */
const PROBE_WARMUP_RUNS = 1;
const PROBE_TIMED_RUNS = 5;

/**
 * ORT time of a batch-1 run at the warm-up shape on a throwaway 1-thread session. A session that
 * cannot be created or does not match the config fails as the real pool would.
 */
async function measureBatch1Ms(
  config: ModelConfig,
  spec: ModelVersionSpec,
  options: SessionOptionsData,
): Promise<number> {
  const probe = await SessionPoolClient.start(1, { ...options, intraOpThreads: 1 }).catch(
    (err: unknown) => {
      throw new ModelLoadError(
        `cannot create an ORT session for ${options.modelPath}: ${(err as Error).message}`,
      );
    },
  );
  try {
    const problems = checkModelSignature(config, probe.inputs, probe.outputs);
    if (problems.length > 0) throw new ModelLoadError(problems.join('; '));
    const outputs = spec.outputs.map((o) => o.name);
    let best = Infinity;
    for (let i = 0; i < PROBE_WARMUP_RUNS + PROBE_TIMED_RUNS; i++) {
      // Buffers move to the worker, so each run gets its own.
      const feeds = assembleBatch([warmupInputs(spec)]).inputs.map((t) => ({
        name: t.name,
        type: ORT_TYPE_OF[t.datatype],
        dims: t.shape,
        buffer: t.buffer,
      }));
      const r = await probe.run(feeds, outputs).catch((err: unknown) => {
        throw new ModelLoadError(`warm-up failed: ${(err as Error).message}`);
      });
      if (i >= PROBE_WARMUP_RUNS) best = Math.min(best, r.inferNs / 1e6);
    }
    return best;
  } finally {
    await probe.close();
  }
}

/**
 * Instances × intra-op threads of a version. An instance_group count always wins (threads: the
 * explicit setting, else the cores ÷ instances). Without one the host chooses: from explicit
 * threads, one instance per that many cores; otherwise from a measured batch-1 run
 * (`chooseInstanceSplit`). A chosen split carries its reason, for the load log.
 */
export async function decideSplit(
  config: ModelConfig,
  spec: ModelVersionSpec,
  path: string,
  d: SessionDefaults,
): Promise<InstanceSplit | { instances: number; intraOpThreads: number; reason?: undefined }> {
  const configured = configuredInstances(config);
  const threads = explicitIntraOpThreads(config, d);
  if (configured !== undefined) {
    return {
      instances: configured,
      intraOpThreads: threads ?? defaultIntraOpThreads(d.cores, configured),
    };
  }
  if (threads !== undefined) return splitForThreads(d.cores, threads);
  if (d.cores <= 1) return chooseInstanceSplit(d.cores, 0);
  const probeOptions = sessionOptions(config, path, d, 1);
  return chooseInstanceSplit(d.cores, await measureBatch1Ms(config, spec, probeOptions));
}

/** Told how a version without an instance count was split (one info line per version). */
export type SplitObserver = (split: InstanceSplit & { model: string; version: string }) => void;

/**
 * Builds one version completely — hash check, sessions, signature check, warm-up — before it
 * is handed out. On any failure the sessions started so far are closed again.
 */
export async function loadModelVersion(
  repo: ModelFilesRepository,
  files: ModelFiles,
  version: number,
  defaults: SessionDefaults,
  metrics: HostMetrics,
  onSplit: SplitObserver = () => undefined,
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
  const wiring = await repo.graphWiring(path);
  const inputBounds = wiring && findInputBounds(wiring);
  const spec: ModelVersionSpec = {
    ...(inputBounds ? { inputBounds } : {}),
    model: files.name,
    version: String(version),
    maxBatchSize: config.maxBatchSize,
    inputs: tensorSpecs(config, 'input'),
    outputs: tensorSpecs(config, 'output'),
    batching: batchingPolicyOf(config),
    labels: files.labels,
  };
  const split = await decideSplit(config, spec, path, defaults);
  if (split.reason !== undefined) onSplit({ ...split, model: spec.model, version: spec.version });
  const count = split.instances;
  spec.instances = count;
  const options = sessionOptions(config, path, defaults, split.intraOpThreads);
  const pool = await SessionPoolClient.start(
    count,
    options,
    loneBatchThreads(config, defaults, count, options.intraOpThreads),
  ).catch((err: unknown) => {
    throw new ModelLoadError(`cannot create an ORT session for ${path}: ${(err as Error).message}`);
  });
  const problems = checkModelSignature(config, pool.inputs, pool.outputs);
  if (problems.length > 0) {
    await pool.close();
    throw new ModelLoadError(problems.join('; '));
  }
  const runtime = new ModelVersionRuntime(spec, pool, metrics);
  try {
    await runtime.warmUp(warmupInputs(spec));
  } catch (err: unknown) {
    await pool.close();
    throw new ModelLoadError(`warm-up failed: ${(err as Error).message}`);
  }
  return runtime;
}
