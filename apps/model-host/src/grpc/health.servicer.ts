import * as grpc from '@grpc/grpc-js';
import { INFERENCE_SERVICE_NAME } from '@mesh/kserve';
import type { ModelHostService } from '../core/model-host.service';

/** `grpc.health.v1.Health`: SERVING once the startup models are loaded. */
export function healthHandlers(host: ModelHostService): grpc.UntypedServiceImplementation {
  return {
    Check: (
      call: grpc.ServerUnaryCall<{ service: string }, unknown>,
      cb: grpc.sendUnaryData<unknown>,
    ) => {
      const service = call.request.service;
      if (service !== '' && service !== INFERENCE_SERVICE_NAME) {
        cb({ code: grpc.status.NOT_FOUND, details: `unknown service '${service}'` });
        return;
      }
      cb(null, { status: host.isReady() ? 'SERVING' : 'NOT_SERVING' });
    },
    Watch: (call: grpc.ServerWritableStream<unknown, unknown>) => {
      call.emit('error', {
        code: grpc.status.UNIMPLEMENTED,
        details: 'Health/Watch is not supported; poll Health/Check',
      });
    },
  };
}
