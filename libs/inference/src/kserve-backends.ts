import {
  KServeBackendPool,
  type KServePoolOptions,
  type ModelConfigMessage,
  type ReadyModel,
  VersionNotResidentError,
} from '@mesh/kserve';
import { batchTensors, type EncodedBatch, type OutputTensor } from '@mesh/preprocessing';
import { NoRoutableVersionError } from '@mesh/routing';
import type { Logger } from 'pino';
import type { BackendDirectory } from './backend-directory';
import type { InferenceGateway, InferenceMeta } from './inference-gateway';
import { BadBackendResponseError } from './inference.errors';
import { shaMismatch } from './model-sha.check';
import type { ServableVersion } from './servable-version';
import type { VersionCatalog } from './version-catalog';

/**
 * Where the backends are, how to reach them (TLS, message size, retries, breaker) and how
 * often to look at them (`healthIntervalMs`, the discovery period): built from the shared
 * `KSERVE_*` variables by `kservePoolOptionsFromEnv`.
 */
export type KServeBackendsOptions = Omit<KServePoolOptions, 'log'>;

/** The discovery period when the options name none (the pool's health period default). */
const DEFAULT_DISCOVERY_MS = 2000;

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
  private versions: () => readonly ServableVersion[] = () => [];
  private catalog?: VersionCatalog;
  private state = new Map<string, Verification>();
  private configs = new Map<string, { signature: string; config: ModelConfigMessage | string }>();
  private readonly listeners: (() => void)[] = [];
  private timer?: NodeJS.Timeout;
  private round?: Promise<void>;
  private stopped = true;

  constructor(
    private readonly options: KServeBackendsOptions,
    private readonly logger: Logger,
  ) {
    this.pool = new KServeBackendPool({
      ...options,
      log: (level, event, fields) => logger[level]({ event, ...fields }, event),
    });
  }

  /**
   * First discovery and verification, then one loop on the discovery interval: backend health
   * and model discovery, a re-read of the repository when a catalog is given (new, changed and
   * removed version directories), then verification — whose ModelConfig calls are repeated
   * only for a (backend, model) whose READY versions or catalog entry changed.
   */
  async start(versions: readonly ServableVersion[] | VersionCatalog): Promise<void> {
    if (Array.isArray(versions)) {
      const fixed: readonly ServableVersion[] = versions;
      this.versions = () => fixed;
    } else {
      const catalog = versions as VersionCatalog;
      this.catalog = catalog;
      this.versions = () => catalog.all();
    }
    this.stopped = false;
    await this.pool.refresh();
    await this.verify();
    this.schedule();
  }

  async close(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.round;
    await this.pool.close();
  }

  /** Runs one discovery round now (e.g. before checking an admin edit); rounds never overlap. */
  discover(): Promise<void> {
    this.round ??= this.discoverOnce()
      .catch((err: unknown) => this.logger.warn({ err }, 'backend discovery failed'))
      .finally(() => {
        this.round = undefined;
      });
    return this.round;
  }

  /** A round begun after this call (one under way may have read the backends before it). */
  async discoverFresh(): Promise<void> {
    await this.round;
    return this.discover();
  }

  /** Called after each round whose verification changed what is routable. */
  onChange(listener: () => void): void {
    this.listeners.push(listener);
  }

  unroutableReason(version: ServableVersion): string | undefined {
    const v = this.state.get(key(version.model, version.version));
    if (!v) return `no backend reports ${version.model} v${version.version} READY`;
    return v.verified.length > 0 ? undefined : v.reason;
  }

  /**
   * Whether some backend reports the version READY, verified or not. False while it is resident
   * nowhere (a placer may load it on demand); a version served with the wrong bytes is resident.
   */
  isResident(version: ServableVersion): boolean {
    return this.state.has(key(version.model, version.version));
  }

  healthyBackends(): number {
    return this.pool.status().filter((s) => s.ready).length;
  }

  /**
   * Session instances serving the version: the instance_group counts of its verified backends'
   * ModelConfig, summed (Triton and the embedded host both report them, the host also when it
   * chose the count itself); undefined while none reports any.
   */
  instancesOf(version: ServableVersion): number | undefined {
    const verified = this.state.get(key(version.model, version.version))?.verified ?? [];
    let total = 0;
    for (const backend of verified) {
      const config = this.configs.get(`${backend}\u0000${version.model}`)?.config;
      if (config === undefined || typeof config === 'string') continue;
      for (const g of config.instance_group ?? []) total += g.count > 0 ? g.count : 1;
    }
    return total > 0 ? total : undefined;
  }

  async infer(
    version: ServableVersion,
    batch: EncodedBatch,
    meta: InferenceMeta,
  ): Promise<OutputTensor> {
    const verified = this.state.get(key(version.model, version.version))?.verified ?? [];
    if (verified.length === 0) {
      if (!this.isResident(version) && this.healthyBackends() > 0) {
        // Unloaded since the pick (placement): a cold start for the caller, not a failure.
        throw new VersionNotResidentError(
          `no healthy backend serves model '${version.model}' version '${version.version}': none holds it now`,
          { model: version.model, version: String(version.version) },
        );
      }
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
      ...(meta.deadlineMs === undefined ? {} : { deadlineMs: Math.max(1, meta.deadlineMs) }),
      ...(meta.signal ? { signal: meta.signal } : {}),
    });
    const out = result.outputs.find((o) => o.name === version.output);
    if (!out || !(out.data instanceof Float32Array)) {
      throw new BadBackendResponseError(
        `backend returned no FP32 output '${version.output}' for ${version.model} v${version.version}`,
      );
    }
    return { shape: out.shape, data: out.data };
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      void this.discover().finally(() => this.schedule());
    }, this.options.healthIntervalMs ?? DEFAULT_DISCOVERY_MS);
    this.timer.unref();
  }

  private async discoverOnce(): Promise<void> {
    await this.pool.refresh();
    if (this.catalog) await this.catalog.refresh();
    await this.verifyOnce();
  }

  private verify(): Promise<void> {
    return this.verifyOnce().catch((err: unknown) =>
      this.logger.warn({ err }, 'backend verification failed'),
    );
  }

  private async verifyOnce(): Promise<void> {
    const readyModels = this.pool.readyModels();
    const ready = new Map(readyModels.map((r) => [`${r.model}@${r.version}`, r.backends]));
    const signatures = readySignatures(readyModels, this.catalog?.generation ?? 0);
    const next = new Map<string, Verification>();
    for (const v of this.versions()) {
      const backends = ready.get(`${v.model}@${v.version}`) ?? [];
      if (backends.length === 0) continue;
      const verified: string[] = [];
      const reasons: string[] = [];
      for (const backend of backends) {
        const config = await this.configOf(signatures, backend, v.model);
        const problem =
          typeof config === 'string'
            ? config
            : shaMismatch(backend, config, v.model, v.version, v.modelSha256);
        if (problem === undefined) verified.push(backend);
        else reasons.push(problem);
      }
      next.set(key(v.model, v.version), { verified, reason: reasons.join('; ') });
    }
    const changed = this.report(next);
    this.state = next;
    // Configs of models no backend serves any more are dropped.
    for (const k of this.configs.keys()) if (!signatures.has(k)) this.configs.delete(k);
    if (changed) for (const listener of this.listeners) listener();
  }

  /**
   * A backend's ModelConfig of a model, fetched again only when the versions it reports READY
   * for that model (or the catalog) changed since the last fetch, or that fetch failed.
   */
  private async configOf(
    signatures: ReadonlyMap<string, string>,
    backend: string,
    model: string,
  ): Promise<ModelConfigMessage | string> {
    const k = `${backend}\u0000${model}`;
    const signature = signatures.get(k) ?? '';
    const cached = this.configs.get(k);
    if (cached && cached.signature === signature && typeof cached.config !== 'string') {
      return cached.config;
    }
    const config = await this.pool
      .modelConfig(model, { backend, deadlineMs: 2000 })
      .catch(
        (err: unknown) =>
          `backend ${backend}: ModelConfig of ${model} failed: ${(err as Error).message}`,
      );
    this.configs.set(k, { signature, config });
    return config;
  }

  /** Logs each change of routability once, not every round; true when anything changed. */
  private report(next: Map<string, Verification>): boolean {
    let changed = false;
    for (const k of this.state.keys()) if (!next.has(k)) changed = true;
    for (const [k, v] of next) {
      const before = this.state.get(k);
      const was = (before?.verified.length ?? 0) > 0;
      const is = v.verified.length > 0;
      if (was !== is || before?.reason !== v.reason) changed = true;
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
    return changed;
  }
}

function key(model: string, version: number): string {
  return `${model}\u0000${version}`;
}

/** Per (backend, model): the READY versions it reports plus the catalog generation. */
function readySignatures(models: readonly ReadyModel[], generation: number): Map<string, string> {
  const versions = new Map<string, string[]>();
  for (const m of models) {
    for (const backend of m.backends) {
      const k = `${backend}\u0000${m.model}`;
      versions.set(k, [...(versions.get(k) ?? []), m.version]);
    }
  }
  return new Map([...versions].map(([k, v]) => [k, `${generation}:${v.sort().join(',')}`]));
}
