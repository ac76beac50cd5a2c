import { Module, type DynamicModule } from '@nestjs/common';
import { HealthController, READINESS_CHECKS, type ReadinessCheck } from '@mesh/telemetry';
import { HostAccessLog } from './core/host-access-log';
import { ModelHostService } from './core/model-host.service';
import { KserveHttpController } from './http/kserve-http.controller';

/** Readiness for /healthz/ready: the startup models finished loading. */
function modelsLoadedCheck(host: ModelHostService): ReadinessCheck {
  return {
    name: 'models',
    check: async () =>
      host.isReady()
        ? { ready: true }
        : { ready: false, detail: 'startup models are still loading' },
  };
}

/** The HTTP side of the host: KServe v2 REST plus `/healthz/*`. gRPC and metrics listen apart. */
@Module({})
export class ModelHostModule {
  static register(host: ModelHostService, access: HostAccessLog): DynamicModule {
    return {
      module: ModelHostModule,
      controllers: [KserveHttpController, HealthController],
      providers: [
        { provide: ModelHostService, useValue: host },
        { provide: HostAccessLog, useValue: access },
        { provide: READINESS_CHECKS, useValue: [modelsLoadedCheck(host)] },
      ],
    };
  }
}
