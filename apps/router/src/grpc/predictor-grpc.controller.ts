import { Metadata, type ServerDuplexStream, type ServerUnaryCall } from '@grpc/grpc-js';
import { Controller, Inject, UseFilters, type BeforeApplicationShutdown } from '@nestjs/common';
import { GrpcMethod, GrpcStreamCall } from '@nestjs/microservices';
import type { Logger } from 'pino';
import { callerGone } from '@mesh/kserve';
import { traceparentOf } from '@mesh/telemetry';
import { AccessLog } from '../access-log';
import { CallerService } from '../tenancy/caller.service';
import type { CallContext, Prediction } from '../predict/predict-commands';
import { PredictService } from '../predict/predict.service';
import { RouterMetrics } from '../router.metrics';
import { TasksService } from '../catalog/tasks.service';
import { callContext } from '../http/call-context';
import {
  parseRequest,
  predictBatchSchema,
  predictSchema,
  tokenizeSchema,
} from '../http/request.schema';
import { LOGGER } from '../router-tokens';
import { GrpcCallRecorder, type PredictorMethod } from './grpc-call-recorder';
import { GrpcErrorFilter, toStreamError } from './grpc-error.hook';
import {
  PredictStreams,
  type PredictStreamRequestMsg,
  type PredictStreamResponseMsg,
} from './predict-stream';

interface PredictRequestMsg {
  task?: string;
  text?: string;
  textPair?: string | null;
}

interface PredictBatchRequestMsg {
  task?: string;
  texts?: string[];
}

/**
 * `mesh.v1.Predictor`: the same calls as the HTTP API, translated message ↔ command at this
 * edge. Proto3 has no "absent" for plain strings, so an empty task reads as missing; the
 * `optional` text_pair keeps its presence.
 */
@Controller()
@UseFilters(GrpcErrorFilter)
export class PredictorGrpcController implements BeforeApplicationShutdown {
  private readonly streams: PredictStreams;
  private readonly recorder: GrpcCallRecorder;

  constructor(
    private readonly callers: CallerService,
    private readonly predictor: PredictService,
    private readonly tasks: TasksService,
    accessLog: AccessLog,
    metrics: RouterMetrics,
    @Inject(LOGGER) logger: Logger,
  ) {
    this.streams = new PredictStreams((err) => toStreamError(err, logger));
    this.recorder = new GrpcCallRecorder(accessLog, metrics);
  }

  @GrpcMethod('Predictor', 'Predict')
  async predict(
    req: PredictRequestMsg,
    md: Metadata,
    call: ServerUnaryCall<unknown, unknown>,
  ): Promise<object> {
    return this.logged('Predict', md, call, (ctx) => this.predictOne(ctx, req));
  }

  /**
   * Predict on one long-lived call: each message is answered on the stream (see
   * PredictStreams), logged, counted and traced as its own request under its own id; a message
   * answered without running (undecodable, or sent while draining) is still one request.
   */
  @GrpcStreamCall('Predictor', 'PredictStream')
  predictStream(
    call: ServerDuplexStream<PredictStreamRequestMsg, PredictStreamResponseMsg>,
  ): Promise<void> {
    // Each request is logged under its own id; the rest (auth, traceparent, sticky key)
    // applies to the whole stream, so every message's span is a child of the caller's.
    const contextFor = (req: PredictStreamRequestMsg, signal?: AbortSignal) =>
      callContext(
        'grpc',
        (name) => (name === 'x-request-id' ? req.id || undefined : textOf(call.metadata, name)),
        undefined,
        signal,
      );
    return this.streams.serve(
      call,
      (req, signal) => {
        const ctx = contextFor(req, signal);
        this.recorder.startSpan('PredictStream', ctx);
        return this.recorder.run('PredictStream', ctx, (c) =>
          this.predictOne(c, req.request ?? {}),
        );
      },
      (req, err) => this.recorder.refused('PredictStream', contextFor(req), err),
    );
  }

  /** Open streams end once they have answered what they hold; grpc-js then shuts down. */
  beforeApplicationShutdown(): void {
    this.streams.drain();
  }

  @GrpcMethod('Predictor', 'PredictBatch')
  async predictBatch(
    req: PredictBatchRequestMsg,
    md: Metadata,
    call: ServerUnaryCall<unknown, unknown>,
  ): Promise<object> {
    return this.logged('PredictBatch', md, call, async (ctx) => {
      const tenant = this.authenticate(ctx);
      const cmd = parseRequest(predictBatchSchema, {
        task: orUndefined(req.task),
        texts: req.texts ?? [],
      });
      const r = await this.predictor.predictBatch(ctx, tenant, cmd);
      return {
        model: r.model,
        version: r.version,
        results: r.results.map(predictionMsg),
        latencyMs: r.latencyMs,
      };
    });
  }

  @GrpcMethod('Predictor', 'Tokenize')
  async tokenize(
    req: PredictRequestMsg,
    md: Metadata,
    call: ServerUnaryCall<unknown, unknown>,
  ): Promise<object> {
    return this.logged('Tokenize', md, call, async (ctx) => {
      const tenant = this.authenticate(ctx);
      return this.predictor.tokenize(ctx, tenant, parseRequest(tokenizeSchema, singleOf(req)));
    });
  }

  @GrpcMethod('Predictor', 'ListTasks')
  listTasks(_req: object, md: Metadata, call: ServerUnaryCall<unknown, unknown>): Promise<object> {
    return this.logged('ListTasks', md, call, (ctx) => {
      const tenant = this.authenticate(ctx);
      return Promise.resolve({ tasks: this.tasks.list(tenant) });
    });
  }

  /** The caller's tenant; a request refused after this point is counted under it. */
  private authenticate(ctx: CallContext) {
    const tenant = this.callers.authenticate(ctx);
    ctx.served = { tenant: tenant.name };
    return tenant;
  }

  /** One Predict, unary or streamed: authenticate, validate, predict, map the answer. */
  private async predictOne(ctx: CallContext, req: PredictRequestMsg): Promise<object> {
    const tenant = this.authenticate(ctx);
    const cmd = parseRequest(predictSchema, singleOf(req));
    const r = await this.predictor.predict(ctx, tenant, cmd);
    return {
      model: r.model,
      version: r.version,
      prediction: predictionMsg(r.prediction),
      latencyMs: r.latencyMs,
    };
  }

  /**
   * Runs one unary call: its answer carries the request id in the response headers, and,
   * traced, the request span's `traceparent` (the span continues the caller's `traceparent`
   * metadata and ends with the outcome code).
   */
  private async logged<T>(
    method: PredictorMethod,
    md: Metadata,
    call: ServerUnaryCall<unknown, unknown>,
    handle: (ctx: CallContext) => Promise<T>,
  ): Promise<T> {
    const { ctx, release } = contextOf(md, call);
    this.recorder.startSpan(method, ctx);
    try {
      return await this.recorder.run(method, ctx, handle);
    } finally {
      release();
      // The request id goes out with the answer, in the same write: sent up front, the
      // headers would be a packet of their own and wake the caller once more per call.
      const out = new Metadata();
      out.set('x-request-id', ctx.requestId);
      if (ctx.span) out.set('traceparent', traceparentOf(ctx.span));
      call.sendMetadata(out);
    }
  }
}

/** The call's context, whose signal aborts when the client cancels or its deadline passes. */
function contextOf(
  md: Metadata,
  call: ServerUnaryCall<unknown, unknown>,
): { ctx: CallContext; release: () => void } {
  const gone = callerGone(call);
  const ctx = callContext('grpc', (name) => textOf(md, name), undefined, gone.signal);
  return { ctx, release: gone.release };
}

/** A text metadata value (binary `-bin` values are not headers the router reads). */
function textOf(md: Metadata, name: string): string | undefined {
  const v = md.get(name)[0];
  return typeof v === 'string' ? v : undefined;
}

function orUndefined(v: string | null | undefined): string | undefined {
  return v === null || v === undefined || v === '' ? undefined : v;
}

function singleOf(req: PredictRequestMsg): object {
  // `text_pair` is proto3 `optional`: presence is on the wire, so a "" that was sent is
  // refused as empty (as over HTTP), and only an absent field means "no pair".
  const textPair = req.textPair ?? undefined;
  // Proto3 cannot tell an unset text from "": both reach the schema as "" and are refused as
  // empty, like an empty text over HTTP.
  return {
    task: orUndefined(req.task),
    text: req.text ?? '',
    ...(textPair === undefined ? {} : { textPair }),
  };
}

function predictionMsg(p: Prediction): object {
  return p.kind === 'classification'
    ? { label: p.label, score: p.score, scores: p.scores, embedding: [] }
    : { label: '', score: 0, scores: [], embedding: p.embedding };
}
