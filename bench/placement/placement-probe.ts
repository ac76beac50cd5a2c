import { readFileSync } from 'node:fs';
import type { RedisClient } from '@mesh/config';
import { memoryParameterKey } from '@mesh/model-repository';
import {
  PlacementAudit,
  PlacementKeys,
  type BackendLedger,
  type PlacementDecision,
} from '@mesh/placement';
import type { BenchProcess } from '../router/bench-processes';

/** Resident set size of a process in MB (0 once it is gone). */
export function rssMb(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

export async function ledgers(redis: RedisClient, prefix: string): Promise<BackendLedger[]> {
  const raw = await redis.hgetall(new PlacementKeys(prefix).ledger());
  return Object.values(raw).map((j) => JSON.parse(j) as BackendLedger);
}

/** Every audited decision from `fromMs` on, oldest first. */
export function decisions(
  redis: RedisClient,
  prefix: string,
  fromMs = 0,
): Promise<PlacementDecision[]> {
  return new PlacementAudit(redis, prefix).since(fromMs);
}

async function hostCall(host: BenchProcess, method: string, path: string): Promise<unknown> {
  const res = await fetch(`${host.urls.http}${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(method === 'POST' ? { body: '{}' } : {}),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${method} ${path}: HTTP ${res.status} ${text}`);
  return text ? (JSON.parse(text) as unknown) : undefined;
}

/**
 * Loads one model on a host through the repository API and reads back what it cost: the
 * load's duration and the footprint the host reports for the version (`memory_mb_v<N>`).
 */
export async function measureLoad(
  host: BenchProcess,
  model: string,
  version: number,
): Promise<{ loadMs: number; footprintMb: number | undefined; rssDeltaMb: number }> {
  const before = rssMb(host.pid);
  const t0 = performance.now();
  await hostCall(host, 'POST', `/v2/repository/models/${model}/load`);
  const loadMs = performance.now() - t0;
  const rssDeltaMb = rssMb(host.pid) - before;
  const config = (await hostCall(
    host,
    'GET',
    `/v2/models/${model}/versions/${version}/config`,
  )) as {
    parameters?: Record<string, { string_value?: string }>;
  };
  const raw = config.parameters?.[memoryParameterKey(version)]?.string_value;
  await hostCall(host, 'POST', `/v2/repository/models/${model}/unload`);
  return { loadMs, footprintMb: raw === undefined ? undefined : Number(raw), rssDeltaMb };
}
