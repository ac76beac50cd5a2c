import { BackendError, type KServeClient } from '@mesh/kserve';
import type { BackendFleet, BackendReadiness } from '../rollout/rollout.ports';
import type { RepositoryModelCatalog } from './repository-model.catalog';

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

  async readiness(model: string, version: number): Promise<BackendReadiness[]> {
    return Promise.all(this.clients.map((c) => this.readyOn(c, model, version)));
  }

  async serve(model: string, versions: number[], addresses?: string[]): Promise<void> {
    const config = await this.catalog.servingConfig(model, versions);
    const targets = this.clients.filter((c) => !addresses || addresses.includes(c.address));
    const results = await Promise.allSettled(
      targets.map((c) =>
        c.repositoryModelLoad(
          { model_name: model, parameters: { config: { string_param: config } } },
          { deadlineMs: this.loadDeadlineMs },
        ),
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

  /** Versions of `model` each backend reports READY in its repository index. */
  async readyVersions(model: string): Promise<Map<string, number[] | Error>> {
    const out = new Map<string, number[] | Error>();
    await Promise.all(
      this.clients.map(async (c) => {
        try {
          const index = await c.repositoryIndex({ ready: false }, { deadlineMs: this.deadlineMs });
          const versions = index.models
            .filter((m) => m.name === model && m.state === 'READY' && /^\d+$/.test(m.version))
            .map((m) => Number(m.version))
            .sort((a, b) => a - b);
          out.set(c.address, versions);
        } catch (err: unknown) {
          out.set(c.address, err instanceof Error ? err : new Error(String(err)));
        }
      }),
    );
    return out;
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

function message(err: unknown): string {
  if (err instanceof BackendError) return err.message;
  return err instanceof Error ? err.message : String(err);
}
