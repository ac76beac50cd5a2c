import type { KServeClient } from '@mesh/kserve';
import type { BackendLedger, PlacementDecision } from '@mesh/placement';

export interface ModelVersionRow {
  model: string;
  version: string;
  state: string;
  reason: string;
  /** What the backend reports for a READY version (config parameter), when it does. */
  modelSha256?: string;
}

/** What the placer last counted on a backend: its budget, MB in use and resident versions. */
export type LedgerRow = Omit<BackendLedger, 'backend'>;

export interface BackendRow {
  address: string;
  /** Set when the backend did not answer; `models` is then empty. */
  error?: string;
  models: ModelVersionRow[];
  /** Absent until the placer has counted this backend. */
  ledger?: LedgerRow;
}

export interface ModelsView {
  backends: BackendRow[];
  /** The newest placement decisions (loads and unloads with their reasons), newest first. */
  decisions: PlacementDecision[];
}

/** The placer's bookkeeping as the view reads it (the ledger hash and the audit stream). */
export interface PlacementReads {
  ledgers(): Promise<BackendLedger[]>;
  recent(count: number): Promise<PlacementDecision[]>;
}

/** Decisions the view shows. */
const RECENT_DECISIONS = 20;

/**
 * The Models view: each backend's repository index (every version, loaded or not, with the
 * backend's reason) and the model_sha256 a READY version reports in its config; beside it the
 * placer's ledger of the backend (budget, MB used, resident versions with their last use) and
 * its recent decisions.
 */
export class ModelsViewReader {
  constructor(
    private readonly clients: readonly KServeClient[],
    private readonly deadlineMs: number,
    private readonly placement?: PlacementReads,
  ) {}

  async read(): Promise<ModelsView> {
    const [backends, ledgers, decisions] = await Promise.all([
      Promise.all(this.clients.map((c) => this.backend(c))),
      this.placement?.ledgers() ?? [],
      this.placement?.recent(RECENT_DECISIONS) ?? [],
    ]);
    const byAddress = new Map(ledgers.map(({ backend, ...row }) => [backend, row]));
    return {
      backends: backends.map((b) => {
        const ledger = byAddress.get(b.address);
        return ledger ? { ...b, ledger } : b;
      }),
      decisions,
    };
  }

  private async backend(client: KServeClient): Promise<BackendRow> {
    const opts = { deadlineMs: this.deadlineMs };
    try {
      const index = await client.repositoryIndex({ ready: false }, opts);
      const models = await Promise.all(
        index.models.map(async (m): Promise<ModelVersionRow> => {
          const row = { model: m.name, version: m.version, state: m.state, reason: m.reason };
          if (m.state !== 'READY' || !/^\d+$/.test(m.version)) return row;
          const sha = await client
            .modelConfig(m.name, m.version, opts)
            .then(({ config }) => shaOf(config?.parameters ?? {}, m.version))
            .catch(() => undefined);
          return sha ? { ...row, modelSha256: sha } : row;
        }),
      );
      models.sort(
        (a, b) => a.model.localeCompare(b.model) || Number(a.version) - Number(b.version),
      );
      return { address: client.address, models };
    } catch (err: unknown) {
      return {
        address: client.address,
        error: err instanceof Error ? err.message : String(err),
        models: [],
      };
    }
  }
}

/** A multi-version config names each version's digest `model_sha256_v<n>`; else `model_sha256`. */
function shaOf(
  params: Record<string, { string_value?: string } | undefined>,
  version: string,
): string | undefined {
  const value =
    params[`model_sha256_v${version}`]?.string_value ?? params.model_sha256?.string_value;
  return value?.trim().toLowerCase() || undefined;
}
