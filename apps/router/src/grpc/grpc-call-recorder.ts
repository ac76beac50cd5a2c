import { performance } from 'node:perf_hooks';
import { tracingEnabled } from '@mesh/telemetry';
import { traceIdOf, type AccessLog } from '../access-log';
import type { CallContext } from '../predict/predict-commands';
import { endRequestSpan, startRequestSpan } from '../predict/request.trace';
import type { PredictMethod, RouterMetrics } from '../router.metrics';
import { describeError } from '../errors/error-view';
import { callContext } from '../http/call-context';

/** The Predictor methods a gRPC caller can reach (PredictStream: one request per message). */
export type PredictorMethod =
  'Predict' | 'PredictBatch' | 'Tokenize' | 'ListTasks' | 'PredictStream';

/**
 * The `method` label each call counts under: the same as the HTTP route's, so a predict is one
 * series whichever transport carried it. ListTasks predicts nothing and is not counted.
 */
const COUNTED: Readonly<Partial<Record<PredictorMethod, PredictMethod>>> = {
  Predict: 'predict',
  PredictBatch: 'predict_batch',
  Tokenize: 'tokenize',
  PredictStream: 'predict',
};

function isPredictorMethod(name: string | undefined): name is PredictorMethod {
  return name === 'ListTasks' || (name !== undefined && name in COUNTED);
}

/** The methods whose requests get a server span while tracing is on: the predict calls. */
const TRACED = new Set<PredictorMethod>(['Predict', 'PredictBatch', 'PredictStream']);

/**
 * What every gRPC request ends with, in one place for unary calls and stream messages alike:
 * its access-log line, its count in `mesh_router_requests_total`, and its request span's end,
 * all with the same outcome (`ok`, CLIENT_CLOSED for a caller that left, else the mesh code).
 * Refusals before the predict path (auth, validation) go through here too, since the handler
 * throws them inside `run`.
 */
export class GrpcCallRecorder {
  constructor(
    private readonly accessLog: AccessLog,
    private readonly metrics: RouterMetrics,
  ) {}

  /**
   * With tracing on, gives a predict request its server span, continuing the call's
   * `traceparent` (a stream's metadata is every message's parent). Nothing is allocated with
   * tracing off.
   */
  startSpan(method: PredictorMethod, ctx: CallContext): void {
    if (!tracingEnabled() || !TRACED.has(method)) return;
    ctx.span = startRequestSpan(
      `mesh.v1.Predictor/${method}`,
      'grpc',
      ctx.traceparent,
      ctx.receivedAt,
    );
  }

  /** Runs one request and records how it ended; the error still reaches the caller. */
  async run<T>(
    method: PredictorMethod,
    ctx: CallContext,
    handle: (ctx: CallContext) => Promise<T>,
  ): Promise<T> {
    let failure: unknown;
    try {
      return await handle(ctx);
    } catch (err: unknown) {
      failure = err ?? new Error('undefined thrown');
      throw err;
    } finally {
      this.finish(method, ctx, failure);
    }
  }

  /**
   * A unary call refused before its handler (bytes that are not its message), by full path;
   * other services' calls are not the Predictor's to record.
   */
  refusedCall(path: string, err: Error): void {
    const [, service, method] = path.split('/');
    if (service !== 'mesh.v1.Predictor' || !isPredictorMethod(method)) return;
    this.refused(
      method,
      callContext('grpc', () => undefined),
      err,
    );
  }

  /** A request answered with `err` without running (a stream message while draining, ...). */
  refused(method: PredictorMethod, ctx: CallContext, err: Error): void {
    this.startSpan(method, ctx);
    this.finish(method, ctx, err);
  }

  private finish(method: PredictorMethod, ctx: CallContext, failure: unknown): void {
    const view = failure === undefined ? undefined : describeError(failure);
    const status = view?.mapping.grpc ?? 0;
    const outcome = !view ? 'ok' : ctx.signal?.aborted === true ? 'CLIENT_CLOSED' : view.code;
    const counted = COUNTED[method];
    if (counted)
      this.metrics.answered({ transport: 'grpc', method: counted, served: ctx.served, outcome });
    // With tracing on, the request's own trace (a new one when the caller sent none).
    const traceId = ctx.span?.spanContext().traceId ?? traceIdOf(ctx.traceparent);
    if (ctx.span) {
      endRequestSpan(ctx.span, ctx.served, outcome, {
        'rpc.grpc.status_code': status,
        'mesh.request_id': ctx.requestId,
      });
    }
    this.accessLog.record({
      requestId: ctx.requestId,
      transport: 'grpc',
      method,
      ...ctx.served,
      status,
      failed: status !== 0,
      ...(view ? { code: outcome } : {}),
      ...(traceId !== undefined ? { traceId } : {}),
      latencyMs: Math.round((performance.now() - ctx.receivedAt) * 1000) / 1000,
    });
  }
}
