import {
  summarize,
  windowsAgree,
  type MeasureOptions,
  type PointResult,
  type Sample,
  type WindowStats,
} from './host-bench.measure';

/** One unit of work: sends a request (or runs a batch) and reports each completed request. */
export type Step = () => Promise<Sample[]>;

/**
 * Closed loop with `loops` parallel workers calling `step` back to back. Warm-up first, then
 * windows of `windowMs` until `agreeWindows` in a row agree within 10 % (or `maxWindows`).
 * Windows are cut by completion time, so a step that blocks the event loop is still measured.
 */
export async function runClosedLoop(
  loops: number,
  makeStep: (loop: number) => Step,
  opts: MeasureOptions,
  cpu: Record<string, () => number>,
  generatorCpu: () => number,
  minStepsPerWindow = 1,
): Promise<PointResult> {
  let warm = 0;
  let measuring = false;
  let done = false;
  const windows: WindowStats[] = [];
  const windowSamples: Sample[][] = [];
  let current: Sample[] = [];
  let windowEnd = 0;
  let windowStart = 0;
  let steps = 0;
  const spans: number[] = [];
  let cpuStart: Record<string, number> = {};
  let genStart = 0;
  let measureStart = 0;
  let cpuEnd: Record<string, number> = {};
  let genEnd = 0;
  let measureEnd = 0;
  const read = () => Object.fromEntries(Object.entries(cpu).map(([k, f]) => [k, f()]));
  const record = (samples: Sample[]) => {
    if (done) return;
    if (!measuring) {
      warm += samples.length;
      if (warm < opts.warmupRequests) return;
      measuring = true;
      measureStart = performance.now();
      windowStart = measureStart;
      windowEnd = measureStart + opts.windowMs;
      cpuStart = read();
      genStart = generatorCpu();
      return;
    }
    current.push(...samples);
    steps++;
    const now = performance.now();
    // A window needs enough steps too, or one slow batch would decide its throughput.
    if (now < windowEnd || steps < minStepsPerWindow) return;
    const s = summarize(current, now - windowStart);
    spans.push(now - windowStart);
    steps = 0;
    windowStart = now;
    windows.push({ throughput: s.throughput, p95: percentileOf(current, 95) });
    windowSamples.push(current);
    current = [];
    windowEnd = now + opts.windowMs;
    if (windowsAgree(windows, opts.agreeWindows) || windows.length >= opts.maxWindows) {
      done = true;
      measureEnd = now;
      cpuEnd = read();
      genEnd = generatorCpu();
    }
  };
  await Promise.all(
    Array.from({ length: loops }, async (_, i) => {
      const step = makeStep(i);
      while (!done) record(await step());
    }),
  );
  const stable = windowsAgree(windows, opts.agreeWindows);
  const used = stable ? windowSamples.slice(-opts.agreeWindows) : windowSamples;
  const samples = used.flat();
  const spanMs = (stable ? spans.slice(-opts.agreeWindows) : spans).reduce((a, b) => a + b, 0);
  const totalRequests = windowSamples.flat().length;
  const elapsedS = (measureEnd - measureStart) / 1000;
  const cpuPer1k = Object.fromEntries(
    Object.keys(cpu).map((k) => [
      k,
      ((cpuEnd[k]! - cpuStart[k]!) / Math.max(1, totalRequests)) * 1000,
    ]),
  );
  return {
    ...summarize(samples, spanMs),
    windows: windows.length,
    stable,
    cpuPer1k,
    generatorCpuShare: (genEnd - genStart) / elapsedS / 2,
  };
}

function percentileOf(samples: Sample[], p: number): number {
  const lat = samples
    .filter((s) => s.ok)
    .map((s) => s.latencyMs)
    .sort((a, b) => a - b);
  return lat.length === 0
    ? NaN
    : lat[Math.min(lat.length - 1, Math.floor((lat.length * p) / 100))]!;
}
