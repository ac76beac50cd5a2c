import { BackendError, type KServeClient } from '@mesh/kserve';
import { memoryParameterKey, parseMemoryMb } from '@mesh/model-repository';
import { budgetFromExtensions } from '@mesh/placement';
import { endSpan, startGrpcClientSpan, traceparentOf, type Span } from '@mesh/telemetry';
import type { BackendFleet, BackendReadiness } from '../rollout-ports';
import type { RepositoryModelCatalog } from './repository-model-catalog';

/** One backend as a placement pass finds it. */
export interface BackendSurvey {
  address: string;
  /** False when its readiness, metadata or repository index failed (dead for the pass). */
  alive: boolean;
  problem?: string;
  /** `memory_budget_mb=<N>` from its ServerMetadata extensions. */
  advertisedBudgetMb?: number;
  /** READY versions of every model in its repository index. */
  ready: { model: string; version: number }[];
}

/**
 * Every KServe backend (embedded host or Triton), driven through Triton's repository API.
 * A version is added or retired by a load whose `config` override names the versions to
 * serve, so versions already serving keep serving and nothing else reloads.
 */
export class KServeBackendFleet implements BackendFleet {
  constructor(
    private readonly clients: readonly KServeClient[],
    private readonly catalog: RepositoryModelCatalog,
    private readonly deadlineMs: number,
    private readonly loadDeadlineMs: number,
  ) {}

  get addresses(): string[] {
    return this.clients.map((c) => c.address);
  }

  async readiness(
    model: string,
    version: number,
    addresses?: readonly string[],
  ): Promise<BackendReadiness[]> {
    const targets = this.clients.filter((c) => !addresses || addresses.includes(c.address));
    return Promise.all(targets.map((c) => this.readyOn(c, model, version)));
  }

  /** Unloads every version of `model` from one backend (Triton's RepositoryModelUnload). */
  async unload(model: string, address: string): Promise<void> {
    const client = this.clients.find((c) => c.address === address);
    if (!client) throw new Error(`no backend ${address}`);
    await client.repositoryModelUnload({ model_name: model }, { deadlineMs: this.loadDeadlineMs });
  }

  /** Each backend's readiness, advertised budget and READY versions, all asked at once. */
  async survey(): Promise<BackendSurvey[]> {
    return Promise.all(this.clients.map((c) => this.surveyOne(c)));
  }

  /** The footprint a backend reports for a loaded version (`memory_mb_v<N>`), if any. */
  async reportedMb(model: string, version: number, address: string): Promise<number | undefined> {
    const client = this.clients.find((c) => c.address === address);
    if (!client) return undefined;
    try {
      const { config } = await client.modelConfig(model, String(version), {
        deadlineMs: this.deadlineMs,
      });
      return parseMemoryMb(config?.parameters?.[memoryParameterKey(version)]?.string_value);
    } catch {
      return undefined; // measured on a later load
    }
  }

  async serve(
    model: string,
    versions: number[],
    addresses?: string[],
    parent?: Span,
  ): Promise<void> {
    const config = await this.catalog.servingConfig(model, versions);
    const targets = this.clients.filter((c) => !addresses || addresses.includes(c.address));
    const request = { model_name: model, parameters: { config: { string_param: config } } };
    const options = { deadlineMs: this.loadDeadlineMs };
    const results = await Promise.allSettled(
      targets.map((c) =>
        parent
          ? loadTraced(c, request, options, parent, versions)
          : c.repositoryModelLoad(request, options),
      ),
    );
    const failed = results
      .map((r, i) =>
        r.status === 'rejected' ? `${targets[i]?.address}: ${message(r.reason)}` : '',
      )
      .filter(Boolean);
    if (failed.length > 0) {
      throw new Error(
        `loading ${model} versions [${versions.join(', ')}] failed on ${failed.join('; ')}`,
      );
    }
  }

  private async surveyOne(c: KServeClient): Promise<BackendSurvey> {
    const opts = { deadlineMs: this.deadlineMs };
    try {
      const [ready, metadata, index] = await Promise.all([
        c.serverReady(opts),
        c.serverMetadata(opts),
        c.repositoryIndex({ ready: false }, opts),
      ]);
      if (!ready.ready)
        return { address: c.address, alive: false, problem: 'not ready', ready: [] };
      const budget = budgetFromExtensions(metadata.extensions ?? []);
      return {
        address: c.address,
        alive: true,
        ...(budget !== undefined ? { advertisedBudgetMb: budget } : {}),
        ready: index.models
          .filter((m) => m.state === 'READY' && /^\d+$/.test(m.version))
          .map((m) => ({ model: m.name, version: Number(m.version) })),
      };
    } catch (err: unknown) {
      return { address: c.address, alive: false, problem: message(err), ready: [] };
    }
  }

  private async readyOn(
    c: KServeClient,
    model: string,
    version: number,
  ): Promise<BackendReadiness> {
    const opts = { deadlineMs: this.deadlineMs };
    try {
      const { ready } = await c.modelReady(model, String(version), opts);
      if (!ready) return { address: c.address, ready: false, problem: 'not ready' };
      const { config } = await c.modelConfig(model, String(version), opts);
      const params = config?.parameters ?? {};
      const sha =
        params[`model_sha256_v${version}`]?.string_value ?? params.model_sha256?.string_value;
      return { address: c.address, ready: true, ...(sha ? { sha: sha.trim().toLowerCase() } : {}) };
    } catch (err: unknown) {
      return { address: c.address, ready: false, problem: message(err) };
    }
  }
}

/**
 * One backend's load as a client span under the rollout step's load, its context sent along
 * in the call's metadata (a backend that traces its repository calls joins the trace).
 */
async function loadTraced(
  c: KServeClient,
  request: Parameters<KServeClient['repositoryModelLoad']>[0],
  options: { deadlineMs: number },
  parent: Span,
  versions: readonly number[],
): Promise<void> {
  const span = startGrpcClientSpan(
    'inference.GRPCInferenceService',
    'RepositoryModelLoad',
    parent,
    {
      attributes: {
        'server.address': c.address,
        'mesh.model': request.model_name,
        'mesh.versions': versions.join(','),
      },
    },
  );
  try {
    await c.repositoryModelLoad(request, {
      ...options,
      metadata: { traceparent: traceparentOf(span) },
    });
    endSpan(span, 'ok');
  } catch (err: unknown) {
    if (err instanceof BackendError) span.setAttribute('rpc.grpc.status_code', err.grpcCode);
    endSpan(span, 'error', message(err));
    throw err;
  }
}

function message(err: unknown): string {
  if (err instanceof BackendError) return err.message;
  return err instanceof Error ? err.message : String(err);
}
