import { postJsonForAnswer } from '../router/http-post';

/** One answered request of the benchmark. */
export interface Sample {
  model: string;
  /** Unix ms it was sent. */
  at: number;
  ms: number;
  status: number;
  /** The router's cold-start wait for this request (`coldStartMs` in the answer), if any. */
  coldMs?: number;
}

/** Zipf weights (rank k gets 1 / k^s) normalised to 1, for `n` items. */
export function zipfWeights(n: number, s: number): number[] {
  const w = Array.from({ length: n }, (_, k) => 1 / Math.pow(k + 1, s));
  const total = w.reduce((a, b) => a + b, 0);
  return w.map((x) => x / total);
}

/** The smallest prefix of ranks that carries `share` of the traffic (the hot set). */
export function hotSet(weights: readonly number[], share: number): number[] {
  const out: number[] = [];
  let sum = 0;
  for (let k = 0; k < weights.length && sum < share; k++) {
    out.push(k);
    sum += weights[k]!;
  }
  return out;
}

/** A seeded stream of ranks drawn from `weights` (the same sequence for every arm). */
export function rankStream(weights: readonly number[], seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    // xorshift32: cheap, deterministic, good enough to draw ranks.
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    let x = (state >>> 0) / 2 ** 32;
    for (let k = 0; k < weights.length; k++) {
      x -= weights[k]!;
      if (x <= 0) return k;
    }
    return weights.length - 1;
  };
}

export interface DriveOptions {
  routerUrl: string;
  key: string;
  /** Model of each rank; its task is `taskOf(model)`. */
  models: readonly string[];
  taskOf: (model: string) => string;
  next: () => number;
  concurrency: number;
  seconds: number;
}

/** A closed loop of `concurrency` clients for `seconds`, recording every answer. */
export async function drive(o: DriveOptions): Promise<Sample[]> {
  const samples: Sample[] = [];
  const end = Date.now() + o.seconds * 1000;
  let i = 0;
  await Promise.all(
    Array.from({ length: o.concurrency }, async () => {
      while (Date.now() < end) {
        const model = o.models[o.next()]!;
        const body = JSON.stringify({
          task: o.taskOf(model),
          text: `placement benchmark request ${i++}`,
        });
        const at = Date.now();
        const t0 = performance.now();
        const r = await postJsonForAnswer(`${o.routerUrl}/v1/predict`, body, o.key).catch(
          (err: unknown) => ({
            status: 0,
            text: String(err),
          }),
        );
        const ms = performance.now() - t0;
        let coldMs: number | undefined;
        if (r.status === 200) {
          const parsed = JSON.parse(r.text) as { coldStartMs?: number };
          coldMs = parsed.coldStartMs;
        }
        samples.push({
          model,
          at,
          ms,
          status: r.status,
          ...(coldMs !== undefined ? { coldMs } : {}),
        });
      }
    }),
  );
  return samples;
}
