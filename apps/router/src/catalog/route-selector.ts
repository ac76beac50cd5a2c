import type { BackendDirectory, ServableVersion, VersionCatalog } from '@mesh/inference';
import {
  inputCapabilityError,
  inputName,
  pairCapabilityError,
  type InputNaming,
  type TextInput,
} from '@mesh/preprocessing';
import type { Route, RoutingTableCache, Tenant, WeightedVersionPicker } from '@mesh/routing';

export interface SelectedVersion {
  route: Route;
  version: ServableVersion;
  /** The route's shadow version when this request is sampled for it and it is routable. */
  shadow?: ServableVersion;
  /** Resident on no backend: the caller waits for its cold start before inferring. */
  cold?: boolean;
}

/** True for a version no backend holds while some backend is up: a placer can load it. */
export type ColdCheck = (version: ServableVersion) => boolean;

/**
 * Resolves (tenant, task) to a route and picks a version that is safe to send to: its
 * preprocessing loaded cleanly, a backend reports it READY, and that backend serves the
 * exact model bytes the manifest names. Otherwise NoRoutableVersionError (503) says why.
 * A version resident nowhere (`isCold`) is still picked by its weight: the placer loads it
 * on demand, and the predict path waits for that (cold start) instead of moving its traffic.
 */
export class RouteSelector {
  constructor(
    private readonly routes: RoutingTableCache,
    private readonly picker: WeightedVersionPicker,
    private readonly catalog: VersionCatalog,
    private readonly backends: BackendDirectory,
    private readonly isCold: ColdCheck = () => false,
  ) {}

  /**
   * Picks among the route's routable versions that can serve `inputs` (weights renormalised
   * over them); the capability error (400/413) only when none can, naming the texts as the
   * request does (`naming`).
   */
  select(
    tenant: Tenant,
    task: string,
    stickyKey: string | undefined,
    inputs: readonly TextInput[],
    naming: InputNaming,
  ): SelectedVersion {
    const { route } = this.routes.resolve(tenant.name, task);
    const refuses = (model: string, v: number): Error | undefined => {
      const servable = this.catalog.servable(model, v);
      return servable && inputCapabilityError(servable, inputs, naming);
    };
    const picked = this.picker.pick(route, {
      ...(stickyKey === undefined ? {} : { stickyKey }),
      unroutableReason: (model, version) => this.pickableReason(model, version),
      refuses,
    });
    // The picker only returns versions the catalog holds, so this lookup cannot miss.
    const version = this.catalog.servable(picked.model, picked.version);
    if (!version) throw new Error(`catalog lost ${picked.model} v${picked.version}`);
    const cold = this.backends.unroutableReason(version) !== undefined;
    const shadowPick = this.picker.pickShadow(route, {
      ...(stickyKey === undefined ? {} : { stickyKey }),
      unroutableReason: (model, v) => this.unroutableReason(model, v),
      refuses,
    });
    const shadow = shadowPick && this.catalog.servable(shadowPick.model, shadowPick.version);
    const chosen: SelectedVersion =
      shadow && shadow !== version ? { route, version, shadow } : { route, version };
    return cold ? { ...chosen, cold } : chosen;
  }

  /**
   * The version a bulk job is pinned to: the route's weighted pick among routable versions
   * that can serve every item by the same rule as `select` (pairs only on pair-capable
   * pipelines). `firstPair` is the index of the job's first item with a textPair, if any;
   * over-long texts do not steer the pick, they become item errors. A cold version may be
   * pinned: the worker parks the job's chunks until the placer has loaded it.
   */
  pinJob(
    route: Route,
    stickyKey: string | undefined,
    firstPair: number | undefined,
  ): ServableVersion {
    const picked = this.picker.pick(route, {
      ...(stickyKey === undefined ? {} : { stickyKey }),
      unroutableReason: (model, version) => this.pickableReason(model, version),
      ...(firstPair === undefined ? {} : { refuses: this.refusesPairAt(firstPair) }),
    });
    const version = this.catalog.servable(picked.model, picked.version);
    if (!version) throw new Error(`catalog lost ${picked.model} v${picked.version}`);
    return version;
  }

  private refusesPairAt(index: number): (model: string, version: number) => Error | undefined {
    return (model, version) => {
      const servable = this.catalog.servable(model, version);
      return servable && pairCapabilityError(servable, inputName('job', 'textPair', index));
    };
  }

  /** Why a version must not be picked: unroutable, unless it is merely cold. */
  private pickableReason(model: string, version: number): string | undefined {
    const reason = this.unroutableReason(model, version);
    if (reason === undefined) return undefined;
    const servable = this.catalog.servable(model, version);
    return servable && this.isCold(servable) ? undefined : reason;
  }

  unroutableReason(model: string, version: number): string | undefined {
    const servable = this.catalog.servable(model, version);
    if (!servable) return this.catalog.problem(model, version);
    return this.backends.unroutableReason(servable);
  }
}
