import type * as grpc from '@grpc/grpc-js';
import { INFERENCE_SERVICE_NAME } from '@mesh/kserve';
import { HealthImplementation } from 'grpc-health-check';
import type { ModelHostService } from '../core/model-host.service';

/** Services the standard health check reports on ('' is the whole server). */
export const HEALTH_SERVICES = ['', INFERENCE_SERVICE_NAME] as const;

type Watch = grpc.ServerWritableStream<unknown, unknown>;
type HealthServer = Parameters<HealthImplementation['addToServer']>[0];

/**
 * `grpc.health.v1.Health` (Check and Watch, grpc-health-check's implementation): SERVING while
 * the host is ready (startup models loaded, not shutting down), NOT_SERVING otherwise; any other
 * service name is NOT_FOUND.
 */
export class HostHealth {
  private readonly health = new HealthImplementation(
    Object.fromEntries(HEALTH_SERVICES.map((s) => [s, 'NOT_SERVING' as const])),
  );
  private readonly watches = new Set<Watch>();

  constructor(private readonly host: ModelHostService) {}

  addToServer(server: grpc.Server): void {
    // A Watch stream never ends on its own and would hold the drain until its deadline: each is
    // remembered so draining() can end it once it has said NOT_SERVING.
    const tracking: HealthServer = {
      addService: (service, impl) =>
        server.addService(service, {
          ...impl,
          watch: (call: Watch) => {
            this.watches.add(call);
            call.once('cancelled', () => this.watches.delete(call));
            (impl.watch as (call: Watch) => void)(call);
          },
        }),
    };
    this.health.addToServer(tracking);
  }

  /** Reports the host's readiness when the listener opens (startup models load before it does). */
  listening(): void {
    this.set(this.host.isReady() ? 'SERVING' : 'NOT_SERVING');
  }

  /** NOT_SERVING from the moment the listener drains (the host is stopping); watches end. */
  draining(): void {
    this.set('NOT_SERVING');
    for (const call of this.watches) call.end();
    this.watches.clear();
  }

  private set(status: 'SERVING' | 'NOT_SERVING'): void {
    for (const s of HEALTH_SERVICES) this.health.setStatus(s, status);
  }
}
