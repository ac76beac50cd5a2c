import type { KServeBackend } from './kserve-backend';
import type { ModelIndex } from './kserve.types';

export type DiscoveryLog = (
  level: 'info' | 'warn',
  event: string,
  fields: Record<string, unknown>,
) => void;

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

/**
 * One health + discovery round for a backend. ServerReady goes through the
 * circuit breaker (so it doubles as the half-open trial call); then
 * RepositoryIndex(ready) lists READY (model, version) pairs and ModelReady
 * confirms each. The backend takes traffic when ServerReady is true or at
 * least one model is confirmed: with Triton's strict readiness one broken
 * model turns ServerReady false while the others serve fine, and per-model
 * readiness is what routing needs.
 */
export async function refreshBackend(
  backend: KServeBackend,
  deadlineMs: number,
  log?: DiscoveryLog,
): Promise<void> {
  const before = backend.status().models.join(',');
  const wasReady = backend.ready;
  backend.lastCheckedAt = Date.now();
  try {
    if (!wasReady && backend.circuit === 'open') {
      // Unreachable last round, and its circuit opened meanwhile: a direct probe tells whether
      // the backend is back (a restarted process); if so it takes traffic from this round on
      // instead of after the rest of the half-open delay.
      const probe = await backend.client.serverReady({ deadlineMs });
      if (probe.ready) backend.closeCircuit();
    }
    const { ready } = await backend.run((c) => c.serverReady({ deadlineMs }));
    const confirmed = await discoverModels(backend, deadlineMs);
    backend.replaceServed(confirmed);
    backend.ready = ready || confirmed.length > 0;
    if (backend.ready) delete backend.lastError;
    else backend.lastError = 'server not ready and no model READY';
  } catch (err: unknown) {
    backend.ready = false;
    backend.lastError = message(err);
  }
  const after = backend.status().models.join(',');
  if (before !== after || wasReady !== backend.ready) {
    log?.(backend.ready ? 'info' : 'warn', 'kserve_backend_changed', {
      backend: backend.address,
      ready: backend.ready,
      models: after,
      error: backend.lastError,
    });
  }
}

async function discoverModels(
  backend: KServeBackend,
  deadlineMs: number,
): Promise<{ name: string; version: string }[]> {
  const o = { deadlineMs };
  const index = await backend.client.repositoryIndex({ repository_name: '', ready: true }, o);
  const ready = index.models.filter((m) => m.state === 'READY');
  const entries = await Promise.all(ready.map((m) => expandVersions(backend, m, deadlineMs)));
  const checks = await Promise.all(
    entries.flat().map(async (e) => {
      const r = await backend.client.modelReady(e.name, e.version, o);
      return r.ready ? e : undefined;
    }),
  );
  return checks.filter((e): e is { name: string; version: string } => e !== undefined);
}

// Some servers list a READY model without a version; ask its metadata.
async function expandVersions(
  backend: KServeBackend,
  m: ModelIndex,
  deadlineMs: number,
): Promise<{ name: string; version: string }[]> {
  if (m.version) return [{ name: m.name, version: m.version }];
  const meta = await backend.client.modelMetadata(m.name, '', { deadlineMs });
  return meta.versions.map((version) => ({ name: m.name, version }));
}
