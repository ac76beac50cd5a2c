/**
 * Reading a V8 `.cpuprofile` (as `node --cpu-prof` writes it): shares of busy samples by self
 * frame and package, and a request's busy time charged to the mesh code that caused it.
 */

interface CpuProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}

export interface CpuProfile {
  nodes: CpuProfileNode[];
  samples: number[];
  /** Monotonic clock, µs (CLOCK_MONOTONIC on Linux, as process.hrtime). */
  startTime: number;
  timeDeltas: number[];
}

/** A window of the monotonic clock, µs: only samples inside it are counted. */
export interface SampleWindow {
  fromUs: number;
  toUs: number;
}

export interface FrameShare {
  frame: string;
  share: number;
}

/**
 * Shares of busy samples (idle excluded) by self frame and by package, biggest first; with a
 * window, only the samples taken inside it (start-up and shutdown left out).
 */
export function summariseProfile(
  profile: CpuProfile,
  window?: SampleWindow,
  top = 12,
): {
  busySamples: number;
  idleShare: number;
  frames: FrameShare[];
  packages: FrameShare[];
} {
  const frames = new Map<string, number>();
  const packages = new Map<string, number>();
  let idle = 0;
  let counted = 0;
  for (const { node } of samplesIn(profile, window)) {
    counted += 1;
    const { functionName, url, lineNumber } = node.callFrame;
    if (functionName === '(idle)') {
      idle += 1;
      continue;
    }
    const where = packageOf(url);
    const name = `${functionName || '(anonymous)'} ${where}${url ? `:${lineNumber + 1}` : ''}`;
    frames.set(name, (frames.get(name) ?? 0) + 1);
    packages.set(where, (packages.get(where) ?? 0) + 1);
  }
  const busy = counted - idle;
  const rank = (m: Map<string, number>) =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([frame, n]) => ({ frame, share: Math.round((n / Math.max(1, busy)) * 1000) / 10 }));
  return {
    busySamples: busy,
    idleShare: Math.round((idle / Math.max(1, counted)) * 1000) / 10,
    frames: rank(frames),
    packages: rank(packages),
  };
}

/** `node_modules/<pkg>`, the mesh's own app or lib, `node:<internal>`, or `(native)`. */
export function packageOf(url: string): string {
  if (!url) return '(native)';
  const mod = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (mod) return mod[1]!;
  const own = /\/(apps|libs|bench)\/([^/]+)\//.exec(url);
  if (own) return `${own[1]}/${own[2]}`;
  if (url.startsWith('node:')) return url.split('/')[0]!;
  return url
    .replace(/^file:\/\//, '')
    .split('/')
    .slice(-1)[0]!;
}

/** Each sample taken inside the window (all of them without one), with its delta from the last, µs. */
function* samplesIn(
  profile: CpuProfile,
  window?: SampleWindow,
): Generator<{ node: CpuProfileNode; delta: number }> {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  let at = profile.startTime;
  for (const [k, id] of profile.samples.entries()) {
    const delta = profile.timeDeltas[k] ?? 0;
    at += delta;
    if (window && (at < window.fromUs || at > window.toUs)) continue;
    const node = byId.get(id);
    if (node) yield { node, delta };
  }
}

/** One line of `costByMeshFrame`: busy ms per request charged to `frame`. */
export interface FrameCost {
  frame: string;
  msPerRequest: number;
}

/**
 * Busy time per request, charged to the innermost mesh frame (`apps/` or `libs/`) on each
 * sample's stack, so that the library and native work a mesh function calls counts to it: the
 * answer to "which of our layers costs what", which self frames do not give when the work is
 * spread thin across Fastify, grpc-js and V8's builtins. A sample with no mesh frame on its
 * stack (the event loop's own work, a socket read before any handler, GC) is charged to its leaf
 * package, marked `(no mesh frame)`. Sample times are the profile's own deltas, µs.
 */
export function costByMeshFrame(
  profile: CpuProfile,
  requests: number,
  window?: SampleWindow,
  top = 15,
): { busyMsPerRequest: number; frames: FrameCost[] } {
  const parent = new Map<number, CpuProfileNode>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n);
  const owner = new Map<number, string>();
  const ownerOf = (leaf: CpuProfileNode): string => {
    const known = owner.get(leaf.id);
    if (known !== undefined) return known;
    const where = packageOf(leaf.callFrame.url);
    let name = `(no mesh frame) ${where === '(native)' ? leaf.callFrame.functionName : where}`;
    for (let n: CpuProfileNode | undefined = leaf; n; n = parent.get(n.id)) {
      const { functionName, url, lineNumber } = n.callFrame;
      const own = url.includes('node_modules') ? null : /\/((?:apps|libs)\/.+)$/.exec(url);
      if (own) {
        name = `${functionName || '(anonymous)'} ${own[1]}:${lineNumber + 1}`;
        break;
      }
    }
    owner.set(leaf.id, name);
    return name;
  };
  const us = new Map<string, number>();
  let busyUs = 0;
  for (const { node, delta } of samplesIn(profile, window)) {
    if (node.callFrame.functionName === '(idle)') continue;
    const name = ownerOf(node);
    us.set(name, (us.get(name) ?? 0) + delta);
    busyUs += delta;
  }
  const perRequest = (x: number) => Math.round((x / 1000 / Math.max(1, requests)) * 1000) / 1000;
  return {
    busyMsPerRequest: perRequest(busyUs),
    frames: [...us.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([frame, x]) => ({ frame, msPerRequest: perRequest(x) })),
  };
}
