import { ELEMENT_BYTES, configTypeToDatatype } from '@mesh/kserve';
import { checkModelSignature, type ModelConfig } from '@mesh/model-repository';
import { assembleBatch, feedsOf } from '../batching/batch-assembler';
import type { HostTensor } from '../core/inference.types';
import type { ModelVersionSpec, TensorSpec } from '../core/model-spec';
import type { SessionOptionsData } from '../execution/ort-worker-protocol';
import { SessionPoolClient } from '../execution/session-pool-client';
import {
  chooseInstanceSplit,
  configuredInstances,
  splitForThreads,
  type InstanceSplit,
} from './instance-split';
import { flagParameter, nonNegativeIntParameter } from './config-parameters';
import { ModelLoadError } from './model-load.errors';

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
  /** Sessions that serve lone requests keep spinning for ORT's bounded spell after a run (ORT_SPIN_BETWEEN_RUNS). */
  spinBetweenRuns?: boolean;
  /**
   * Intra-op threads of the lone-batch session; 0 = none; undefined: every core when the version
   * runs several instances whose sessions each get fewer threads than that.
   */
  loneBatchThreads?: number;
  /** os.availableParallelism() (respects taskset/cgroup CPU affinity, unlike cpus().length). */
  cores: number;
  /** ORT's log level for every session; unset: ORT's default (warnings included). */
  logSeverityLevel?: SessionOptionsData['logSeverityLevel'];
  /** Nice value of every session's intra-op pool threads (ORT_POOL_THREAD_NICE); 0/unset: theirs. */
  poolThreadNice?: number;
}

/** Intra-op threads per session when neither the environment nor config.pbtxt sets them. */
export function defaultIntraOpThreads(cores: number, instances: number): number {
  return Math.max(1, Math.floor(cores / Math.max(1, instances)));
}

/**
 * The lone-batch session's threads when neither the environment nor config.pbtxt sets them:
 * instances split the cores for throughput, so a batch that runs alone would use only its
 * instance's share; one extra session with every core serves it instead. One instance that
 * already has every core gets none by default: a twin that spins for it (`lone_batch_threads`
 * set on a one-instance config, see `instanceSessionOptions`) serves loads of many callers with
 * less CPU, but costs a second copy of the model and some CPU while idle (ADR 0013).
 */
export function defaultLoneBatchThreads(
  cores: number,
  instances: number,
  intraOpThreads: number,
): number {
  return instances > 1 && intraOpThreads < cores ? cores : 0;
}

const LEVELS = ['disabled', 'basic', 'extended', 'all'] as const;

export function tensorSpecs(config: ModelConfig, which: 'input' | 'output'): TensorSpec[] {
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

/** Intra-op threads set explicitly: config's intra_op_thread_count (0 = unset), else the environment. */
function explicitIntraOpThreads(config: ModelConfig, d: SessionDefaults): number | undefined {
  return nonNegativeIntParameter(config, 'intra_op_thread_count') || d.intraOpThreads;
}

export function sessionOptions(
  config: ModelConfig,
  path: string,
  d: SessionDefaults,
  intraOpThreads: number,
): SessionOptionsData {
  const p = (k: string): string | undefined => config.parameters[k]?.stringValue;
  // 0 means "the default", as in Triton's ORT backend.
  const int = (k: string, fallback: number): number =>
    nonNegativeIntParameter(config, k) || fallback;
  const level = p('graph_optimization_level') ?? d.graphOptimizationLevel;
  if (!(LEVELS as readonly string[]).includes(level)) {
    throw new ModelLoadError(
      `parameter 'graph_optimization_level' must be one of ${LEVELS.join(', ')} (got "${level}")`,
    );
  }
  const spinning = flagParameter(config, 'allow_spinning', d.allowSpinning);
  return {
    modelPath: path,
    intraOpThreads,
    interOpThreads: int('inter_op_thread_count', d.interOpThreads),
    graphOptimizationLevel: level as SessionOptionsData['graphOptimizationLevel'],
    allowSpinning: spinning,
    spinBetweenRuns:
      spinning && flagParameter(config, 'spin_between_runs', d.spinBetweenRuns ?? false),
    ...(d.logSeverityLevel !== undefined ? { logSeverityLevel: d.logSeverityLevel } : {}),
    ...(d.poolThreadNice ? { poolThreadNice: d.poolThreadNice } : {}),
  };
}

/** `lone_batch_threads` (0 turns the lone-batch session off), else the environment or the default. */
export function loneBatchThreads(
  config: ModelConfig,
  d: SessionDefaults,
  instances: number,
  intraOpThreads: number,
): number {
  return (
    nonNegativeIntParameter(config, 'lone_batch_threads') ??
    d.loneBatchThreads ??
    defaultLoneBatchThreads(d.cores, instances, intraOpThreads)
  );
}

/** A zero-filled request of batch 1 (variable dims set to 8) to warm the sessions. */
export function warmupInputs(spec: ModelVersionSpec): HostTensor[] {
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
      const feeds = feedsOf(assembleBatch([warmupInputs(spec)]).inputs);
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
