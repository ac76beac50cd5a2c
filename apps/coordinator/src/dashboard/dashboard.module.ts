import { resolve } from 'node:path';
import {
  type DynamicModule,
  Inject,
  type InjectionToken,
  Module,
  type OnModuleInit,
  type Provider,
} from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance } from 'fastify';
import { JobReader, type JobRepository } from '@mesh/jobs';
import type { KServeClient } from '@mesh/kserve';
import type { RouteEditValidator, RoutingTableRepository } from '@mesh/routing';
import type {
  RouterHeartbeatRepository,
  TrafficSignalSource,
  TrafficVersionsSource,
} from '@mesh/signals';
import type { AdminAuthenticator } from '@mesh/tenancy';
import { ADMIN_AUTHENTICATOR, AdminKeyGuard, OpenStreamsRegistry } from '@mesh/telemetry';
import type { Clock } from '../rollout/rollout-ports';
import type { RolloutRepository } from '../rollout/rollout.repository';
import type { RolloutService } from '../rollout/rollout.service';
import {
  DASHBOARD_PATH,
  DashboardUiController,
  redirectToDashboard,
} from './dashboard-ui.controller';
import { DashboardController } from './dashboard.controller';
import type { DashboardFeeds } from './dashboard-feeds';
import { DASHBOARD_FEEDS, DASHBOARD_UI_DIR } from './dashboard-tokens';
import { JobsViewReader } from './jobs-view';
import { ModelsViewReader, type PlacementReads } from './models-view';
import { RouteWeightsEditor } from './route-weights-editor';
import { RoutesViewReader } from './routes-view';
import { TrafficViewReader, type TrafficViewOptions } from './traffic-view';

/** The coordinator's own collaborators the dashboard reads and writes through. */
export interface DashboardDeps {
  auth: AdminAuthenticator;
  clock: Clock;
  table: RoutingTableRepository;
  heartbeats: RouterHeartbeatRepository;
  /** Per-version traffic, and which versions had any (retired ones stay in the Traffic view). */
  signals: TrafficSignalSource & TrafficVersionsSource;
  routeValidator: Pick<RouteEditValidator, 'check'>;
  rollouts: Pick<RolloutService, 'list'>;
  rolloutRepository: Pick<RolloutRepository, 'activeId'>;
  jobs: JobRepository;
  backends: readonly KServeClient[];
  backendDeadlineMs: number;
  /** The placer's ledger and audit, for the Models view. */
  placement?: PlacementReads;
  /** Default: `dist/ui` under the working directory (where `npm run build` puts it). */
  uiDir?: string;
  traffic?: TrafficViewOptions;
  /** Re-read period of each view's live stream; defaults suit a page left open all day. */
  everyMs?: Partial<Record<keyof DashboardFeeds, number>>;
}

const EVERY_MS: Record<keyof DashboardFeeds, number> = {
  routes: 1000,
  rollouts: 1000,
  jobs: 1000,
  traffic: 5000,
  models: 5000,
};

/** Deps built by Nest: the tokens to inject and the factory that turns them into deps. */
export interface DashboardDepsFactory {
  inject: InjectionToken[];
  useFactory(...args: never[]): DashboardDeps;
}

const DASHBOARD_DEPS = Symbol('DASHBOARD_DEPS');

/** `/ui` and `/v1/dashboard`, behind the same admin key as the rollout API. */
@Module({})
export class DashboardModule implements OnModuleInit {
  constructor(@Inject(HttpAdapterHost) private readonly http: HttpAdapterHost) {}

  /**
   * `/ui/` (typed or pasted with the slash) goes to the page too. Nest strips trailing slashes
   * from its routes and does not route `/ui/` to `ui/:file`, so this one route is Fastify's.
   */
  onModuleInit(): void {
    this.http.httpAdapter
      .getInstance<FastifyInstance>()
      .get(`${DASHBOARD_PATH}/`, (_request, reply) => redirectToDashboard(reply));
  }
  static register(deps: DashboardDeps): DynamicModule {
    return DashboardModule.module({ provide: DASHBOARD_DEPS, useValue: deps });
  }

  /** The app's way: its deps come from providers of the modules it imports. */
  static registerAsync(
    imports: NonNullable<DynamicModule['imports']>,
    deps: DashboardDepsFactory,
  ): DynamicModule {
    return { ...DashboardModule.module({ provide: DASHBOARD_DEPS, ...deps }), imports };
  }

  private static module(deps: Provider): DynamicModule {
    const fromDeps = <T>(provide: InjectionToken, make: (d: DashboardDeps) => T): Provider => ({
      provide,
      inject: [DASHBOARD_DEPS],
      useFactory: make,
    });
    return {
      module: DashboardModule,
      controllers: [DashboardController, DashboardUiController],
      providers: [
        deps,
        fromDeps(ADMIN_AUTHENTICATOR, (d) => d.auth),
        fromDeps(
          JobsViewReader,
          (d) => new JobsViewReader(new JobReader(d.jobs, { now: () => d.clock.now() })),
        ),
        { provide: DASHBOARD_FEEDS, inject: [DASHBOARD_DEPS, JobsViewReader], useFactory: feedsOf },
        fromDeps(DASHBOARD_UI_DIR, (d) => d.uiDir ?? resolve('dist', 'ui')),
        fromDeps(
          RouteWeightsEditor,
          (d) => new RouteWeightsEditor(d.table, d.routeValidator, d.rolloutRepository),
        ),
        OpenStreamsRegistry,
        AdminKeyGuard,
      ],
    };
  }
}

function feedsOf(deps: DashboardDeps, jobs: JobsViewReader): DashboardFeeds {
  const routes = new RoutesViewReader(deps.table, deps.heartbeats, deps.rolloutRepository);
  const traffic = new TrafficViewReader(deps.signals, deps.table, deps.clock, deps.traffic);
  const models = new ModelsViewReader(deps.backends, deps.backendDeadlineMs, deps.placement);
  const every = { ...EVERY_MS, ...deps.everyMs };
  return {
    routes: { read: () => routes.read(), everyMs: every.routes },
    traffic: { read: () => traffic.read(), everyMs: every.traffic },
    rollouts: {
      read: async () => ({ rollouts: await deps.rollouts.list() }),
      everyMs: every.rollouts,
    },
    jobs: { read: () => jobs.read(), everyMs: every.jobs },
    models: { read: () => models.read(), everyMs: every.models },
  };
}
