import * as grpc from '@grpc/grpc-js';
import { callerGone, TRACEPARENT_PARAMETER } from '@mesh/kserve';
import type {
  ModelConfigRequest,
  ModelInferRequest,
  ModelMetadataRequest,
  ModelRepositoryParameter,
  ModelReadyRequest,
  ModelStatisticsRequest,
  RepositoryIndexRequest,
  RepositoryModelLoadRequest,
  RepositoryModelUnloadRequest,
} from '@mesh/kserve';
import { modelConfigToProtoJson } from '@mesh/model-repository';
import { grpcCallAttributes } from '@mesh/telemetry';
import type { Logger } from 'pino';
import { ERROR_STATUS } from '../core/error-status-map';
import {
  checkUnloadParameters,
  loadOptionsFrom,
  type LoadParameterValue,
} from '../core/load-options';
import { requestIdOf, type HostAccessLog, type HostCall } from '../core/host-access-log';
import type { InferResponse } from '../core/inference.types';
import { toHostError } from '../core/model-host.errors';
import { endInferSpan, startInferSpan } from '../core/infer.trace';
import type { ModelHostService } from '../core/model-host.service';
import { fromInferMessage, toInferMessage } from './infer-message.codec';
import { statsToProto } from './statistics.codec';

type Unary<Req> = grpc.ServerUnaryCall<Req, unknown>;

const UNSUPPORTED: Record<string, string> = {
  SystemSharedMemoryStatus: 'system shared memory',
  SystemSharedMemoryRegister: 'system shared memory',
  SystemSharedMemoryUnregister: 'system shared memory',
  CudaSharedMemoryStatus: 'CUDA shared memory',
  CudaSharedMemoryRegister: 'CUDA shared memory',
  CudaSharedMemoryUnregister: 'CUDA shared memory',
  TraceSetting: 'trace settings',
  LogSettings: 'log settings',
};

/** The set member of each ModelRepositoryParameter (proto oneof) as a plain value. */
function repositoryParameters(
  params: Record<string, ModelRepositoryParameter> | undefined,
): Record<string, LoadParameterValue> {
  return Object.fromEntries(
    Object.entries(params ?? {}).map(([k, p]) => {
      const choice = p.parameter_choice;
      const value = choice === undefined ? undefined : p[choice];
      return [k, choice === 'int64_param' ? Number(value) : value];
    }),
  );
}

/** Hands the caller's `x-request-id` back in the response headers, for log correlation. */
function echoRequestId(call: {
  metadata: grpc.Metadata;
  sendMetadata(m: grpc.Metadata): void;
}): void {
  const id = call.metadata.get('x-request-id')[0];
  if (id === undefined) return;
  const out = new grpc.Metadata();
  out.set('x-request-id', id);
  call.sendMetadata(out);
}

/**
 * `inference.GRPCInferenceService` on raw grpc-js: each handler maps the proto message to one
 * ModelHostService call and back. Errors become the status from ERROR_STATUS.
 */
export class InferenceServicer {
  /** How to end each open ModelStreamInfer call (see endStreams). */
  private readonly streams = new Set<() => void>();

  constructor(
    private readonly host: ModelHostService,
    private readonly logger: Logger,
    private readonly access: HostAccessLog,
  ) {}

  handlers(): grpc.UntypedServiceImplementation {
    const unary =
      <Req>(fn: (req: Req, metadata: grpc.Metadata, call: Unary<Req>) => unknown) =>
      (call: Unary<Req>, cb: grpc.sendUnaryData<unknown>) => {
        // The response headers go out with the answer, in the same write: sent up front they
        // would be one more packet (and one more wake-up of the caller) per call.
        Promise.resolve()
          .then(() => fn(call.request, call.metadata, call))
          .then(
            (res) => {
              echoRequestId(call);
              cb(null, res);
            },
            (err: unknown) => {
              echoRequestId(call);
              cb(this.toStatus(err));
            },
          );
      };
    const h = this.host;
    const impl: grpc.UntypedServiceImplementation = {
      ServerLive: unary(() => ({ live: h.isLive() })),
      ServerReady: unary(() => ({ ready: h.isReady() })),
      ModelReady: unary((r: ModelReadyRequest) => ({
        ready: h.isModelReady(r.name, r.version ?? ''),
      })),
      ServerMetadata: unary(() => h.serverMetadata()),
      ModelMetadata: unary((r: ModelMetadataRequest) => h.metadata(r.name, r.version ?? '')),
      ModelInfer: unary(async (r: ModelInferRequest, md, call) => {
        const gone = callerGone(call);
        try {
          return toInferMessage(await this.inferLogged('ModelInfer', r, md, gone.signal));
        } finally {
          gone.release();
        }
      }),
      ModelStreamInfer: (call: grpc.ServerDuplexStream<ModelInferRequest, unknown>) =>
        this.stream(call),
      ModelConfig: unary((r: ModelConfigRequest) => ({
        config: modelConfigToProtoJson(h.config(r.name, r.version ?? '')),
      })),
      ModelStatistics: unary((r: ModelStatisticsRequest) => ({
        model_stats: h.statistics(r.name ?? '', r.version ?? '').map(statsToProto),
      })),
      RepositoryIndex: unary(async (r: RepositoryIndexRequest) => ({
        models: await h.index(r.ready ?? false),
      })),
      RepositoryModelLoad: unary(async (r: RepositoryModelLoadRequest) => {
        await h.load(r.model_name, loadOptionsFrom(repositoryParameters(r.parameters)));
        return {};
      }),
      RepositoryModelUnload: unary(async (r: RepositoryModelUnloadRequest) => {
        checkUnloadParameters(repositoryParameters(r.parameters));
        await h.unload(r.model_name);
        return {};
      }),
    };
    for (const [method, what] of Object.entries(UNSUPPORTED)) {
      impl[method] = (_call: Unary<unknown>, cb: grpc.sendUnaryData<unknown>) =>
        cb({
          code: grpc.status.UNIMPLEMENTED,
          details: `${method}: ${what} is not supported by the embedded model host; use Triton for it`,
        });
    }
    return impl;
  }

  /** Each streamed request is answered in the stream; errors travel in error_message (as Triton). */
  private stream(call: grpc.ServerDuplexStream<ModelInferRequest, unknown>): void {
    echoRequestId(call);
    // Cancelling the stream cancels every request of it still waiting in a queue.
    const gone = callerGone(call).signal;
    let open = 0;
    let ended = false;
    const maybeEnd = () => {
      if (ended && open === 0 && this.streams.delete(endNow)) call.end();
    };
    const endNow = () => {
      ended = true;
      maybeEnd();
    };
    this.streams.add(endNow);
    call.on('data', (req: ModelInferRequest) => {
      // After the stream was told to end (the host is draining), a request is not taken: the
      // caller sees the stream end without its answer and asks elsewhere.
      if (ended) return;
      open++;
      Promise.resolve()
        .then(() => this.inferLogged('ModelStreamInfer', req, call.metadata, gone))
        .then(
          (res) => call.write({ error_message: '', infer_response: toInferMessage(res) }),
          (err: unknown) =>
            call.write({
              error_message: toHostError(err).message,
              infer_response: {
                model_name: req.model_name,
                model_version: req.model_version ?? '',
                id: req.id ?? '',
                outputs: [],
                raw_output_contents: [],
              },
            }),
        )
        .finally(() => {
          open--;
          maybeEnd();
        });
    });
    call.on('end', endNow);
    call.on('cancelled', () => this.streams.delete(endNow));
    call.on('error', (err) => this.logger.debug({ err: err.message }, 'stream error'));
  }

  /** Ends every open inference stream once it has answered the requests it holds (draining). */
  endStreams(): void {
    for (const end of [...this.streams]) end();
  }

  /**
   * One inference, written to the access log under the caller's request id. Traced (tracing on
   * and the call came with a `traceparent`): a server span, child of the caller's span. On a
   * stream the `traceparent` is the request's own parameter (one stream carries many callers'
   * requests), else the call's metadata.
   */
  private inferLogged(
    method: string,
    req: ModelInferRequest,
    metadata: grpc.Metadata,
    signal: AbortSignal,
  ): Promise<InferResponse> {
    const call: HostCall = {
      requestId: requestIdOf(metadata.get('x-request-id')[0], req.id),
      transport: 'grpc',
      method,
      model: req.model_name,
      version: req.model_version ?? '',
    };
    const span = startInferSpan(
      `inference.GRPCInferenceService/${method}`,
      traceparentOf(req, metadata),
      call,
      grpcCallAttributes('inference.GRPCInferenceService', method),
    );
    if (!span) {
      return this.access.around(call, () => this.host.infer({ ...fromInferMessage(req), signal }));
    }
    const inference = this.access.around(call, () =>
      this.host.infer({ ...fromInferMessage(req), signal, span }),
    );
    return endInferSpan(span, inference, signal, (code) => [
      'rpc.grpc.status_code',
      ERROR_STATUS[code].grpc,
    ]);
  }

  private toStatus(err: unknown): Partial<grpc.StatusObject> {
    const e = toHostError(err);
    if (e.code === 'INTERNAL') this.logger.error({ err: e.message }, 'request failed');
    return { code: ERROR_STATUS[e.code].grpc, details: e.message };
  }
}

/** A stream request's own `traceparent` parameter, else the call's metadata. */
function traceparentOf(req: ModelInferRequest, metadata: grpc.Metadata): string | undefined {
  const own = req.parameters?.[TRACEPARENT_PARAMETER]?.string_param;
  if (typeof own === 'string' && own !== '') return own;
  const sent = metadata.get('traceparent')[0];
  return typeof sent === 'string' ? sent : undefined;
}
