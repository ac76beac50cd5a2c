import {
  Metadata,
  type sendUnaryData,
  type ServerReadableStream,
  type ServerUnaryCall,
} from '@grpc/grpc-js';
import { Controller, Inject, UseFilters } from '@nestjs/common';
import { GrpcMethod, GrpcStreamCall } from '@nestjs/microservices';
import {
  JobInputError,
  JobTooLargeError,
  parseJobItem,
  type JobItem,
  type JobStatusView,
} from '@mesh/jobs';
import { from, type Observable } from 'rxjs';
import { CallerService } from '../tenancy/caller.service';
import { RequestValidationError } from '../errors/router.errors';
import { GrpcErrorFilter, toGrpcError } from '../grpc/grpc-error.hook';
import { LOGGER } from '../router-tokens';
import type { Logger } from 'pino';
import { callContext } from '../http/call-context';
import { parseRequest } from '../http/request.schema';
import {
  fromSchema,
  idempotencyKeySchema,
  listQuerySchema,
  taskSchema,
} from './job-request.schema';
import {
  endSpan,
  OpenStreamsRegistry,
  traceparentOf,
  tracingEnabled,
  type Span,
} from '@mesh/telemetry';
import { describeError } from '../errors/error-view';
import type { CallContext } from '../predict/predict-commands';
import { startSubmitSpan } from './job.trace';
import { JobQueryService, type JobResultLine } from './job-query.service';
import { JobSubmissionService } from './job-submission.service';

interface JobItemMsg {
  id?: string;
  text?: string;
  textPair?: string | null;
}

interface SubmitJobRequestMsg {
  task?: string;
  stickyKey?: string;
  idempotencyKey?: string;
  items?: JobItemMsg[];
}

/**
 * `mesh.v1.Jobs`: the job API over gRPC. SubmitJob is client-streaming; the task and keys are
 * taken from the first message that sets them, and items are stored as they arrive.
 */
@Controller()
@UseFilters(GrpcErrorFilter)
export class JobsGrpcController {
  constructor(
    private readonly callers: CallerService,
    private readonly submissions: JobSubmissionService,
    private readonly query: JobQueryService,
    private readonly streams: OpenStreamsRegistry,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  /**
   * Client-streaming: the raw call is read as an async iterable (backpressure included);
   * the answer and any error go through the callback, errors mapped like every other call.
   */
  /**
   * Traced, the call gets a server span continuing the caller's `traceparent` metadata; the
   * response headers carry its `traceparent` and it ends with the outcome code.
   */
  @GrpcStreamCall('Jobs', 'SubmitJob')
  async submit(
    call: ServerReadableStream<SubmitJobRequestMsg, object>,
    callback: sendUnaryData<object>,
  ): Promise<void> {
    const ctx = readContext(call.metadata);
    const span = tracingEnabled()
      ? startSubmitSpan('grpc', ctx.traceparent, ctx.receivedAt)
      : undefined;
    sendHeaders(call, ctx, span);
    let answer: object;
    try {
      answer = await this.submitFrom(call, ctx, span);
    } catch (err: unknown) {
      if (span) {
        const view = describeError(err);
        span.setAttribute('rpc.grpc.status_code', view.mapping.grpc);
        endSpan(span, view.code, view.message);
      }
      callback(toGrpcError(err, this.logger));
      return;
    }
    if (span) {
      span.setAttribute('rpc.grpc.status_code', 0);
      endSpan(span, 'ok');
    }
    callback(null, answer);
  }

  private async submitFrom(
    call: ServerReadableStream<SubmitJobRequestMsg, object>,
    ctx: CallContext,
    span: Span | undefined,
  ): Promise<object> {
    const tenant = this.callers.authenticate(ctx);
    const iterator = (call as AsyncIterable<SubmitJobRequestMsg>)[Symbol.asyncIterator]();
    // The header fields come with the first message; its items are the first items.
    const first = await iterator.next();
    const head: SubmitJobRequestMsg = first.done ? {} : first.value;
    const discard = async () => {
      for (let n = await iterator.next(); !n.done; n = await iterator.next()) {
        // dropped: the upload was refused or names an existing job
      }
    };
    if (!head.task) {
      await discard();
      throw new RequestValidationError([
        { path: 'task', message: 'is required in the first message' },
      ]);
    }
    const task = parseRequest(taskSchema, head.task);
    const idempotencyKey = parseRequest(idempotencyKeySchema, head.idempotencyKey || undefined);
    const r = await this.submissions.submit(tenant, {
      task,
      ...(head.stickyKey ? { stickyKey: head.stickyKey } : {}),
      ...(idempotencyKey === undefined ? {} : { idempotencyKey }),
      items: (maxItems) => itemsOf(head, iterator, maxItems),
      discard,
      ...(span ? { span } : {}),
    });
    return {
      jobId: r.jobId,
      model: r.model,
      version: r.version,
      pipeline: r.pipeline,
      total: r.total,
    };
  }

  @GrpcMethod('Jobs', 'GetJob')
  async getJob(
    req: { jobId?: string },
    md: Metadata,
    call: ServerUnaryCall<unknown, unknown>,
  ): Promise<object> {
    const tenant = this.callers.authenticate(contextOf(md, call));
    return statusMsg(await this.query.status({ tenant }, req.jobId ?? ''));
  }

  @GrpcMethod('Jobs', 'CancelJob')
  async cancelJob(
    req: { jobId?: string },
    md: Metadata,
    call: ServerUnaryCall<unknown, unknown>,
  ): Promise<object> {
    const tenant = this.callers.authenticate(contextOf(md, call));
    return statusMsg(await this.query.cancel({ tenant }, req.jobId ?? ''));
  }

  @GrpcMethod('Jobs', 'ListJobs')
  async listJobs(
    req: { state?: string; limit?: number },
    md: Metadata,
    call: ServerUnaryCall<unknown, unknown>,
  ): Promise<object> {
    const tenant = this.callers.authenticate(contextOf(md, call));
    const q = parseRequest(listQuerySchema, {
      ...(req.state ? { state: req.state } : {}),
      ...(req.limit ? { limit: req.limit } : {}),
    });
    const jobs = await this.query.list({ tenant }, q);
    return { jobs: jobs.map(statusMsg) };
  }

  @GrpcMethod('Jobs', 'GetJobResults')
  async getJobResults(
    req: { jobId?: string; fromIndex?: number },
    md: Metadata,
    call: ServerUnaryCall<unknown, unknown>,
  ): Promise<Observable<object>> {
    const tenant = this.callers.authenticate(contextOf(md, call));
    const jobId = req.jobId ?? '';
    const start = parseRequest(fromSchema, req.fromIndex ?? 0);
    await this.query.status({ tenant }, jobId);
    const open = this.streams.track();
    call.once('cancelled', open.done);
    const query = this.query;
    async function* messages(): AsyncGenerator<object> {
      try {
        for await (const lines of query.results({ tenant }, jobId, start, open.signal)) {
          for (const line of lines) yield resultMsg(line);
        }
      } finally {
        open.done();
      }
    }
    return from(messages());
  }
}

async function* itemsOf(
  head: SubmitJobRequestMsg,
  rest: AsyncIterator<SubmitJobRequestMsg>,
  maxItems: number,
): AsyncGenerator<JobItem> {
  let index = 0;
  const take = function* (msg: SubmitJobRequestMsg): Generator<JobItem> {
    for (const m of msg.items ?? []) {
      if (index >= maxItems) throw new JobTooLargeError(maxItems, 'items');
      const item = parseJobItem({
        text: m.text ?? '',
        ...(m.textPair === undefined || m.textPair === null ? {} : { textPair: m.textPair }),
        ...(m.id ? { id: m.id } : {}),
      });
      if (typeof item === 'string')
        throw new JobInputError(`items[${index}]: ${item}`, undefined, index);
      index += 1;
      yield item;
    }
  };
  yield* take(head);
  for (let next = await rest.next(); !next.done; next = await rest.next()) yield* take(next.value);
}

function contextOf(md: Metadata, call: { sendMetadata(md: Metadata): void }): CallContext {
  const ctx = readContext(md);
  sendHeaders(call, ctx, undefined);
  return ctx;
}

function readContext(md: Metadata): CallContext {
  return callContext('grpc', (name) => {
    const v = md.get(name)[0];
    return typeof v === 'string' ? v : undefined;
  });
}

/** The response headers: the request id, and the span's `traceparent` when traced. */
function sendHeaders(
  call: { sendMetadata(md: Metadata): void },
  ctx: CallContext,
  span: Span | undefined,
): void {
  const out = new Metadata();
  out.set('x-request-id', ctx.requestId);
  if (span) out.set('traceparent', traceparentOf(span));
  call.sendMetadata(out);
}

function statusMsg(v: JobStatusView): object {
  return {
    ...v,
    reason: v.reason ?? '',
    etaSeconds: v.etaSeconds ?? -1,
    startedAt: v.startedAt ?? '',
    finishedAt: v.finishedAt ?? '',
    traceId: v.traceId ?? '',
  };
}

function resultMsg(line: JobResultLine): object {
  const id = line.id === undefined ? '' : String(line.id);
  if ('error' in line) return { index: line.index, id, error: line.error };
  return { ...line, id };
}
