import { NoRoutableVersionError, type UnroutableReason } from './routing.errors';
import type { Route } from './routing.types';
import { stickyFraction } from './sticky-hash';

export interface PickOptions {
  /** Same key → same version while the route's weights and routable set are unchanged; '' = none. */
  stickyKey?: string;
  /** Reason the version must not get traffic (manifest failed, no READY backend ...), or undefined. */
  unroutableReason?: (model: string, version: number) => string | undefined;
  /**
   * Why this version cannot serve this particular request (e.g. a text pair on a pipeline
   * that takes single texts), or undefined. Such versions are skipped and the weights
   * renormalised over the rest; when every routable version refuses, the first refusal is
   * thrown (a client error), never NoRoutableVersionError.
   */
  refuses?: (model: string, version: number) => Error | undefined;
}

export interface PickedVersion {
  model: string;
  version: number;
}

/** Salt so that shadow sampling is independent of the version choice for the same key. */
const SHADOW_SALT = '\u0000shadow';

/** Weighted choice of a route's version, random or sticky, skipping unroutable versions. */
export class WeightedVersionPicker {
  constructor(private readonly random: () => number = Math.random) {}

  /**
   * Throws NoRoutableVersionError (with a reason per version) when nothing can take traffic,
   * or the first refusal when every routable version refuses this request.
   */
  pick(route: Route, options: PickOptions = {}): PickedVersion {
    const reasons: UnroutableReason[] = [];
    const routable = route.versions.filter((v) => {
      if (!(v.weight > 0)) return false;
      const reason = options.unroutableReason?.(route.model, v.version);
      if (reason !== undefined) reasons.push({ version: v.version, reason });
      return reason === undefined;
    });
    if (routable.length === 0) throw new NoRoutableVersionError(route.model, reasons);
    let refusal: Error | undefined;
    const candidates = options.refuses
      ? routable.filter((v) => {
          const refused = options.refuses!(route.model, v.version);
          refusal ??= refused;
          return refused === undefined;
        })
      : routable;
    const last = candidates[candidates.length - 1];
    if (!last) throw refusal ?? new NoRoutableVersionError(route.model, reasons);
    const total = candidates.reduce((sum, v) => sum + v.weight, 0);
    let point = this.draw(options.stickyKey) * total;
    for (const candidate of candidates) {
      point -= candidate.weight;
      if (point < 0) return { model: route.model, version: candidate.version };
    }
    // Floating-point rounding can leave a sliver past the last boundary.
    return { model: route.model, version: last.version };
  }

  /**
   * The shadow version to mirror this request to, or undefined: sampled by `shadow.percent`
   * (default 100), sticky when a key is given, and skipped (never an error) when unroutable.
   */
  pickShadow(route: Route, options: PickOptions = {}): PickedVersion | undefined {
    const shadow = route.shadow;
    if (!shadow) return undefined;
    const percent = shadow.percent ?? 100;
    const key = options.stickyKey ? options.stickyKey + SHADOW_SALT : undefined;
    if (this.draw(key) * 100 >= percent) return undefined;
    if (options.unroutableReason?.(route.model, shadow.version) !== undefined) return undefined;
    if (options.refuses?.(route.model, shadow.version) !== undefined) return undefined;
    return { model: route.model, version: shadow.version };
  }

  /** An empty key counts as none: it would otherwise send every such request to one version. */
  private draw(stickyKey: string | undefined): number {
    return stickyKey ? stickyFraction(stickyKey) : this.random();
  }
}
