import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Cluster } from '../../bench/chaos/cluster';
import type { ChaosContext, ScenarioResult } from '../../bench/chaos/scenario';

/**
 * A `ChaosContext` for running a chaos scenario inside Jest (always `--quick`): each cluster
 * gets its own redis-server and key prefix, and everything it started is SIGKILLed after the
 * file's tests, whatever happened.
 */
export function chaosContext(id: string): ChaosContext & { cleanup(): Promise<void> } {
  const tmpDir = mkdtempSync(join(tmpdir(), `chaos-e2e-${id}-`));
  const clusters: Cluster[] = [];
  const abort = new AbortController();
  return {
    quick: true,
    tmpDir,
    shared: new Map(),
    signal: abort.signal,
    log: () => undefined,
    cluster: (prefix = `chaos-e2e-${id}`) => {
      const c = new Cluster(join(tmpDir, `cluster-${clusters.length}`), prefix);
      clusters.push(c);
      return c;
    },
    cleanup: async () => {
      abort.abort();
      await Promise.all(clusters.map((c) => c.stopAll()));
      rmSync(tmpDir, { recursive: true, force: true });
    },
  };
}

/** Names of the result's failed checks, leaving out those `skip` matches (time-based ones). */
export function failedChecks(result: ScenarioResult, skip: RegExp = /$^/): string[] {
  return (result.checks ?? [])
    .filter((c) => !c.ok && !skip.test(c.name))
    .map((c) => `${c.name}${c.detail ? `: ${c.detail}` : ''}`);
}
