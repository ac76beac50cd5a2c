import type { SessionOptionsData } from './ort-worker-protocol';

/**
 * The instance sessions' options. Where a lone-batch session serves the batches that run alone,
 * the instances serve the load, beside one another and the router on the same cores: they do not
 * spin, so a pool thread waiting between operators sleeps and leaves its core to the others. With
 * no lone-batch session the instances serve the lone request too, and spin as configured. A
 * 1-thread session has no pool to spin, so this changes only instances of two threads or more,
 * such as one instance given a twin (`lone_batch_threads` on a one-instance config): at c=32 on a
 * 2-vCPU VM its host spent 4.85 CPU-ms per request against 6.19 for the spinning instance alone
 * (docs/benchmarks/lone-twin-epyc.md).
 */
export function instanceSessionOptions(
  options: SessionOptionsData,
  loneThreads: number,
): SessionOptionsData {
  return loneThreads > 0 ? { ...options, allowSpinning: false, spinBetweenRuns: false } : options;
}

/**
 * The lone-batch session's options: its threads, and spinning as configured (on by default: a
 * lone run has the machine to itself, and between its operators the other threads spin instead
 * of sleeping and being woken again, which on a 2-core VM cut a lone short text by about 1.5 ms
 * with no more CPU per request — ADR 0013). `ORT_ALLOW_SPINNING=0` or a model's
 * `allow_spinning: "0"` turns it off.
 *
 * Past its runs it spins only as the twin of a single instance. Beside several instances it
 * never does: they run batches side by side while it idles, and a spinning pool would take their
 * cores. A single instance runs the batches of a load (those that waited for another batch, see
 * ModelVersionRuntime), and the twin's spell after a run is what lets the next lone request of a
 * steady stream find its threads awake (0.69 ms at c=1, docs/benchmarks/spin-past-runs-epyc.md).
 *
 * Its pool threads keep the host's priority (`poolThreadNice` is for instances): it runs only when
 * nothing else does, so there is nobody for them to give way to, and a thread of lower priority
 * woken for a lone run waits for the event loop's leftovers first (the tuned config's c=1 p50 was
 * 0.59 ms slower with it, outside its A/A pair's 0.11 ms; docs/benchmarks/pool-nice-epyc.md).
 */
export function loneSessionOptions(
  options: SessionOptionsData,
  threads: number,
  instances: number,
): SessionOptionsData {
  return {
    ...options,
    intraOpThreads: threads,
    spinBetweenRuns: instances === 1 && options.spinBetweenRuns === true,
    poolThreadNice: 0,
  };
}
