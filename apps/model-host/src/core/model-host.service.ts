import { memoryParameterKey, type ModelConfig } from '@mesh/model-repository';
import type { ModelIndexEntry } from '../repository/model-index';
import type { ModelManagerService } from '../repository/model-manager.service';
import type { ModelVersionRuntime } from './model-version-runtime';
import type { BatchDurations, Duration } from './inference-statistics';
import type { InferRequest, InferResponse } from './inference.types';
import type { LoadOptions } from './load-options';
import { ModelNotFoundError, ModelUnavailableError } from './model-host.errors';
import { fullDims, type ModelVersionSpec } from './model-spec';
import { checkClassifiable, classifyOutput } from './output-classifier';

export interface TensorInfo {
  name: string;
  datatype: string;
  shape: number[];
}

export interface ModelMetadata {
  name: string;
  versions: string[];
  platform: string;
  inputs: TensorInfo[];
  outputs: TensorInfo[];
}

export interface VersionStatistics {
  name: string;
  version: string;
  lastInferenceMs: number;
  inferenceCount: number;
  executionCount: number;
  success: Duration;
  fail: Duration;
  queue: Duration;
  computeInput: Duration;
  computeInfer: Duration;
  computeOutput: Duration;
  batches: BatchDurations[];
}

export const SERVER_NAME = 'model-mesh-host';
export const SERVER_VERSION = '0.1.0';
/** Triton's names for the protocol extensions the host implements (ServerMetadata). */
export const SERVER_EXTENSIONS = [
  'classification',
  'model_repository',
  'model_repository(unload_dependents)',
  'schedule_policy',
  'model_configuration',
  'binary_tensor_data',
  'statistics',
];

/** Server metadata as both transports answer it. */
export interface ServerMetadata {
  name: string;
  version: string;
  extensions: string[];
}

/**
 * The extensions list with the host's memory budget, when it has one, as one more entry
 * `memory_budget_mb=<N>`: Triton's ServerMetadata has no capacity field, and a placer that
 * speaks only the KServe protocol reads the budget here (Triton itself lists no such entry, so
 * a placer treats its absence as "unknown").
 */
export function serverExtensions(memoryBudgetMb: number | undefined): string[] {
  return memoryBudgetMb === undefined
    ? [...SERVER_EXTENSIONS]
    : [...SERVER_EXTENSIONS, `memory_budget_mb=${memoryBudgetMb}`];
}

/**
 * The config with `memory_mb_v<N>` of each serving version set to the footprint it counts for,
 * max(declared, measured at load): what a placer reading ModelConfig adds up per version.
 */
function withFootprints(config: ModelConfig, runtimes: readonly ModelVersionRuntime[]) {
  const measured = runtimes.filter((rt) => rt.spec.memoryMb !== undefined);
  if (measured.length === 0) return config;
  const parameters = { ...config.parameters };
  for (const rt of measured) {
    parameters[memoryParameterKey(rt.spec.version)] = { stringValue: String(rt.spec.memoryMb) };
  }
  return { ...config, parameters };
}

/**
 * What both transports call: one method per KServe operation, domain types in and out.
 * gRPC and HTTP controllers only translate wire shapes to these calls.
 */
export class ModelHostService {
  private live = true;

  private readonly metadataAnswer: ServerMetadata;

  constructor(private readonly models: ModelManagerService) {
    this.metadataAnswer = {
      name: SERVER_NAME,
      version: SERVER_VERSION,
      extensions: serverExtensions(models.memory.budgetMb),
    };
  }

  serverMetadata(): ServerMetadata {
    return this.metadataAnswer;
  }

  isLive(): boolean {
    return this.live;
  }

  isReady(): boolean {
    return this.live && this.models.isReady();
  }

  /** Marks the server not live/ready (shutdown in progress). */
  stopping(): void {
    this.live = false;
  }

  isModelReady(name: string, version: string): boolean {
    try {
      this.models.runtime(name, version);
      return true;
    } catch {
      return false;
    }
  }

  async infer(req: InferRequest): Promise<InferResponse> {
    if (req.model === '') throw new ModelNotFoundError('model name is empty');
    if (!this.live) throw new ModelUnavailableError('the server is shutting down');
    const rt = this.models.runtime(req.model, req.version);
    const classes = Object.entries(req.classification ?? {});
    for (const [name, count] of classes) {
      // An unknown output is left to the request validator, which names the model's outputs.
      const out = rt.spec.outputs.find((o) => o.name === name);
      if (out) checkClassifiable(name, out.datatype, count);
    }
    const res = await rt.infer(req);
    if (classes.length === 0) return res;
    const batched = rt.spec.maxBatchSize > 0;
    const outputs = res.outputs.map((o) => {
      const count = req.classification?.[o.name];
      return count === undefined ? o : classifyOutput(o, count, batched, rt.spec.labels?.[o.name]);
    });
    return { ...res, outputs };
  }

  /** The served version's spec ('' = latest), e.g. to read a raw binary request against. */
  spec(name: string, version: string): ModelVersionSpec {
    return this.models.runtime(name, version).spec;
  }

  metadata(name: string, version: string): ModelMetadata {
    const rt = this.models.runtime(name, version);
    const versions =
      version === '' ? this.models.runtimes(name).map((r) => r.spec.version) : [version];
    const spec = rt.spec;
    const info = (t: (typeof spec.inputs)[number]): TensorInfo => ({
      name: t.name,
      datatype: t.datatype,
      shape: fullDims(spec, t),
    });
    return {
      name,
      versions,
      platform: this.models.configOf(name).platform,
      inputs: spec.inputs.map(info),
      outputs: spec.outputs.map(info),
    };
  }

  config(name: string, version: string): ModelConfig {
    // A version that is not served has no config to answer with.
    const runtimes = version !== '' ? [this.models.runtime(name, version)] : undefined;
    const config = withFootprints(
      this.models.configOf(name),
      runtimes ?? this.models.runtimes(name),
    );
    if (config.instanceGroup.some((g) => !g.countUnset)) return config;
    // As Triton completes a config, report the instances chosen without one: routers size
    // their calls in flight by it.
    const count = Math.max(
      0,
      ...(runtimes ?? this.models.runtimes(name)).map((rt) => rt.spec.instances ?? 0),
    );
    if (count <= 0) return config;
    // Keep what the author wrote of the group (kind, name), with the count the host chose.
    const { countUnset: _unset, ...written } = config.instanceGroup[0] ?? { kind: 'KIND_CPU' };
    return { ...config, instanceGroup: [{ ...written, count }] };
  }

  statistics(name: string, version: string): VersionStatistics[] {
    const runtimes = this.models.runtimes(name, version);
    if (name !== '' && runtimes.length === 0) {
      throw new ModelNotFoundError(`model '${name}' has no loaded version`);
    }
    return runtimes.map((rt) => {
      const s = rt.stats;
      return {
        name: rt.spec.model,
        version: rt.spec.version,
        lastInferenceMs: s.lastInferenceMs,
        inferenceCount: s.inferenceCount,
        executionCount: s.executionCount,
        success: { ...s.success },
        fail: { ...s.fail },
        queue: { ...s.queue },
        computeInput: { ...s.computeInput },
        computeInfer: { ...s.computeInfer },
        computeOutput: { ...s.computeOutput },
        batches: s.batchStats(),
      };
    });
  }

  index(readyOnly: boolean): Promise<ModelIndexEntry[]> {
    return this.models.index(readyOnly);
  }

  async load(name: string, options: LoadOptions = {}): Promise<void> {
    this.models.checkControlAllowed();
    await this.models.load(name, options.config);
  }

  async unload(name: string): Promise<void> {
    this.models.checkControlAllowed();
    await this.models.unload(name);
  }
}
