import type { ModelConfig } from '@mesh/model-repository';

/** How a version without an instance count spreads over the cores. */
export interface InstanceSplit {
  instances: number;
  intraOpThreads: number;
  /** One line for the load log: what decided it. */
  reason: string;
}

/**
 * A batch-1 run (warm-up shape, one intra-op thread) at or below this is a small, fast model:
 * one single-threaded instance per core. Instances side by side give the throughput (the raw-ORT
 * ceiling picks 2 × 1 thread over 1 × 2 for every batched configuration on 2 cores,
 * docs/benchmarks/router-epyc-dec02.md), and a lone request still gets every core from the
 * lone-batch session (ADR 0013). The small bench model runs in a few ms at that shape; a
 * BERT-base-sized model takes tens of ms.
 */
export const FAST_BATCH1_MS = 10;

/**
 * The instance count config.pbtxt gives (instance_group counts summed), if it writes any: a
 * config with no instance_group, or whose groups write no count, leaves the choice to the host.
 */
export function configuredInstances(config: ModelConfig): number | undefined {
  if (config.instanceGroup.every((g) => g.countUnset)) return undefined;
  return Math.max(
    1,
    config.instanceGroup.reduce((n, g) => n + g.count, 0),
  );
}

/**
 * Instances × intra-op threads for a version whose config has no instance_group, from the
 * cores this process may use and a measured batch-1 run on one thread. Fast models get one
 * 1-thread instance per core. A slower model gets fewer instances with more threads each, the
 * threads doubling per doubling of cost over FAST_BATCH1_MS: its operators are large enough to
 * split well across threads, a lone request finishes sooner, and fewer copies of a large model
 * sit in memory.
 */
export function chooseInstanceSplit(cores: number, batch1Ms: number): InstanceSplit {
  const c = Math.max(1, Math.floor(cores));
  const ms = Math.round(batch1Ms * 100) / 100;
  if (c === 1) return { instances: 1, intraOpThreads: 1, reason: 'one core' };
  if (!(batch1Ms > FAST_BATCH1_MS)) {
    return {
      instances: c,
      intraOpThreads: 1,
      reason: `batch-1 run ${ms} ms on one thread (fast, ≤ ${FAST_BATCH1_MS} ms): one single-threaded instance per core`,
    };
  }
  const threads = Math.min(c, 2 ** Math.ceil(Math.log2(batch1Ms / FAST_BATCH1_MS)));
  const instances = Math.max(1, Math.floor(c / threads));
  return {
    instances,
    intraOpThreads: threads,
    reason: `batch-1 run ${ms} ms on one thread (slow, > ${FAST_BATCH1_MS} ms): ${threads} threads per instance`,
  };
}

/** With intra-op threads set but no instance count: one instance per that many cores. */
export function splitForThreads(cores: number, intraOpThreads: number): InstanceSplit {
  return {
    instances: Math.max(1, Math.floor(cores / Math.max(1, intraOpThreads))),
    intraOpThreads,
    reason: `intra-op threads set to ${intraOpThreads}: one instance per ${intraOpThreads} of ${cores} cores`,
  };
}
