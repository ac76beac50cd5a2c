import { KServeBackendPool, type ModelConfigMessage } from '@mesh/kserve';
import { batchTensors, type EncodedBatch, type OutputTensor } from '@mesh/preprocessing';
import { NoRoutableVersionError } from '@mesh/routing';
import type { Logger } from 'pino';
import type { BackendDirectory } from './backend.directory';
import type { InferenceGateway, InferenceMeta } from './inference.gateway';
import { BadBackendResponseError } from './inference.errors';
import { shaMismatch } from './model-sha.verifier';
import type { ServableVersion } from './servable-version';

/** Where the backends are and how often to look at them. */
export interface KServeBackendsOptions {
  /** `host:port` KServe v2 gRPC endpoints (KSERVE_ENDPOINTS). */
  endpoints: readonly string[];
  /** gRPC max send/receive message size on the backend channels. */
  maxMessageBytes: number;
  /** Deadline of each inference call. */
  inferDeadlineMs: number;
  /** How often backends are asked what they serve and the versions re-verified. */
  discoveryIntervalMs: number;
}

interface Verification {
  /** Backends that report the version READY and serve the manifest's exact bytes. */
  verified: string[];
  /** Why not, when `verified` is empty. */
  reason?: string;
}

/**
 * The router's view of its KServe v2 backends, over @mesh/kserve's pool: which versions are
 * READY where, and — checked after every discovery round through ModelConfig — which of those
 * backends serve the bytes each version's manifest names. Inference only goes to verified
 * backends, with Triton's `priority` parameter (1 online; bulk traffic uses 2, so it never
 * starves online requests) and the request's tracing metadata.
 */
export class KServeBackends implements BackendDirectory, InferenceGateway {
  private readonly pool: KServeBackendPool;
  private versions: readonly ServableVersion[] = [];
  private state = new Map<string, Verification>();
  private timer?: NodeJS.Timeout;
  private round?: Promise<void>;

  constructor(
    private readonly options: KServeBackendsOptions,
    private readonly logger: Logger,
  ) {
    this.pool = new KServeBackendPool({
      endpoints: options.endpoints,
      maxMessageBytes: options.maxMessageBytes,
      deadlineMs: options.inferDeadlineMs,
      healthIntervalMs: options.discoveryIntervalMs,
      log: (level, event, fields) => logger[level]({ event, ...fields }, event),
    });
  }

  /** First discovery and verification, then both on the discovery interval. */
  async start(versions: readonly ServableVersion[]): Promise<void> {
    this.versions = versions;
    await this.pool.start();
    await this.verify();
    this.timer = setInterval(() => void this.verify(), this.options.discoveryIntervalMs);
    this.timer.unref();
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.round;
    await this.pool.close();
  }

  unroutableReason(version: ServableVersion): string | undefined {
    const v = this.state.get(key(version.model, version.version));
    if (!v) return `no backend reports ${version.model} v${version.version} READY`;
    return v.verified.length > 0 ? undefined : v.reason;
  }

  healthyBackends(): number {
    return this.pool.status().filter((s) => s.ready).length;
  }

  async infer(
    version: ServableVersion,
    batch: EncodedBatch,
    meta: InferenceMeta,
  ): Promise<OutputTensor> {
    const verified = this.state.get(key(version.model, version.version))?.verified ?? [];
    if (verified.length === 0) {
      const reason = this.unroutableReason(version) ?? 'no verified backend';
      throw new NoRoutableVersionError(version.model, [{ version: version.version, reason }]);
    }
    const result = await this.pool.infer({
      model: version.model,
      version: String(version.version),
      inputs: batchTensors(batch),
      outputs: [version.output],
      parameters: { priority: meta.priority },
      metadata: {
        'x-request-id': meta.requestId,
        ...(meta.traceparent ? { traceparent: meta.traceparent } : {}),
      },
      id: meta.requestId,
      backends: verified,
    });
    const out = result.outputs.find((o) => o.name === version.output);
    if (!out || !(out.data instanceof Float32Array)) {
      throw new BadBackendResponseError(
        `backend returned no FP32 output '${version.output}' for ${version.model} v${version.version}`,
      );
    }
    return { shape: out.shape, data: out.data };
  }

  /** One verification round; rounds never overlap. */
  private verify(): Promise<void> {
    this.round ??= this.verifyOnce()
      .catch((err: unknown) => this.logger.warn({ err }, 'backend verification failed'))
      .finally(() => {
        this.round = undefined;
      });
    return this.round;
  }

  private async verifyOnce(): Promise<void> {
    const ready = new Map(
      this.pool.readyModels().map((r) => [`${r.model}@${r.version}`, r.backends]),
    );
    const configs = new Map<string, ModelConfigMessage | string>();
    const next = new Map<string, Verification>();
    for (const v of this.versions) {
      const backends = ready.get(`${v.model}@${v.version}`) ?? [];
      if (backends.length === 0) continue;
      const verified: string[] = [];
      const reasons: string[] = [];
      for (const backend of backends) {
        const config = await this.configOf(configs, backend, v.model);
        const problem =
          typeof config === 'string'
            ? config
            : shaMismatch(backend, config, v.model, v.version, v.modelSha256);
        if (problem === undefined) verified.push(backend);
        else reasons.push(problem);
      }
      next.set(key(v.model, v.version), { verified, reason: reasons.join('; ') });
    }
    this.report(next);
    this.state = next;
  }

  private async configOf(
    cache: Map<string, ModelConfigMessage | string>,
    backend: string,
    model: string,
  ): Promise<ModelConfigMessage | string> {
    const k = `${backend}\u0000${model}`;
    let config = cache.get(k);
    if (config === undefined) {
      config = await this.pool
        .modelConfig(model, { backend, deadlineMs: 2000 })
        .catch(
          (err: unknown) =>
            `backend ${backend}: ModelConfig of ${model} failed: ${(err as Error).message}`,
        );
      cache.set(k, config);
    }
    return config;
  }

  /** Logs each change of routability once, not every round. */
  private report(next: Map<string, Verification>): void {
    for (const [k, v] of next) {
      const before = this.state.get(k);
      const was = (before?.verified.length ?? 0) > 0;
      const is = v.verified.length > 0;
      if (was === is && before) continue;
      const [model, version] = k.split('\u0000');
      if (is)
        this.logger.info(
          { event: 'version-verified', model, version, backends: v.verified },
          'version routable',
        );
      else
        this.logger.warn(
          { event: 'version-unverified', model, version, reason: v.reason },
          'version unroutable',
        );
    }
  }
}

function key(model: string, version: number): string {
  return `${model}\u0000${version}`;
}
