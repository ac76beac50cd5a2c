import type { KServeBackends, ServableVersion, VersionCatalog } from '@mesh/inference';
import type { EncodedBatch, OutputTensor } from '@mesh/preprocessing';
import type { ChunkInference, InferMeta } from './chunk-inference';

/**
 * The router's inference path (@mesh/inference) seen from the worker: the worker loads its own
 * version catalog and runs its own backend discovery and model-sha checks, so whether a
 * pinned version is routable is decided here, and tokenization and inference are the router's.
 */
export class WorkerInference implements ChunkInference<ServableVersion> {
  constructor(
    private readonly catalog: VersionCatalog,
    private readonly backends: KServeBackends,
  ) {}

  async start(): Promise<void> {
    await this.backends.start(this.catalog.all());
  }

  async close(): Promise<void> {
    await this.backends.close();
  }

  servable(model: string, version: number): ServableVersion | undefined {
    return this.catalog.servable(model, version);
  }

  unroutableReason(model: string, version: number): string | undefined {
    const servable = this.catalog.servable(model, version);
    if (!servable) return this.catalog.problem(model, version);
    return this.backends.unroutableReason(servable);
  }

  isCold(model: string, version: number): boolean {
    const servable = this.catalog.servable(model, version);
    return (
      servable !== undefined &&
      this.backends.healthyBackends() > 0 &&
      !this.backends.isResident(servable)
    );
  }

  refresh(): Promise<void> {
    return this.backends.discover();
  }

  infer(version: ServableVersion, batch: EncodedBatch, meta: InferMeta): Promise<OutputTensor> {
    return this.backends.infer(version, batch, { ...meta, traceparent: meta.traceparent });
  }
}
