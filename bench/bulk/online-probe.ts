import { performance } from 'node:perf_hooks';
import { summarize, type LatencySummary } from './bench-stats';

export interface ProbeResult extends LatencySummary {
  errors: number;
  concurrency: number;
}

/**
 * Closed-loop single predicts at a fixed concurrency for `seconds`: the online traffic whose
 * latency bulk work must not ruin.
 */
export async function probeOnline(
  url: string,
  key: string,
  task: string,
  texts: readonly string[],
  concurrency: number,
  seconds: number,
): Promise<ProbeResult> {
  const samples: number[] = [];
  let errors = 0;
  let n = 0;
  const end = performance.now() + seconds * 1000;
  const loop = async () => {
    while (performance.now() < end) {
      const text = texts[n++ % texts.length]!;
      const t0 = performance.now();
      const res = await fetch(`${url}/v1/predict`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        body: JSON.stringify({ task, text }),
      });
      await res.arrayBuffer();
      if (res.status === 200) samples.push(performance.now() - t0);
      else errors += 1;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, loop));
  return { ...summarize(samples), errors, concurrency };
}
