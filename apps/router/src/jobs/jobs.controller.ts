import { Readable } from 'node:stream';
import {
  Body,
  Controller,
  Delete,
  Get,
  Headers,
  HttpCode,
  Inject,
  Param,
  Post,
  Query,
  Req,
  Res,
  UseGuards,
} from '@nestjs/common';
import { parseNdjsonItems, type JobStatusView } from '@mesh/jobs';
import { AdminKeyGuard, OpenStreamsRegistry, streamRaw } from '@mesh/telemetry';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CallerService } from '../tenancy/caller.service';
import { RequestValidationError } from '../errors/router.errors';
import { callContext } from '../http/call-context';
import { parseRequest } from '../http/request.schema';
import type { SubmitJobCommand } from './job-commands';
import {
  fromSchema,
  idempotencyKeySchema,
  jsonItems,
  listQuerySchema,
  submitJsonSchema,
  taskQuerySchema,
} from './job-request.schema';
import { JobQueryService, type JobResultLine, type JobViewer } from './job-query.service';
import { JobSubmissionService } from './job-submission.service';
import { JOB_UPLOAD_LIMITS, type JobUploadLimits } from './job-upload-limits';

export const NDJSON = 'application/x-ndjson';

/**
 * Bulk jobs over HTTP: submit (JSON body or streamed NDJSON), status, progress events (SSE),
 * results (NDJSON, input order, resumable with ?from=), cancel, list; admin list and cancel.
 * Tenant routes authenticate the tenant's key; the admin routes are guarded by AdminKeyGuard.
 */
@Controller('v1')
export class JobsController {
  constructor(
    private readonly callers: CallerService,
    private readonly submissions: JobSubmissionService,
    private readonly query: JobQueryService,
    private readonly streams: OpenStreamsRegistry,
    @Inject(JOB_UPLOAD_LIMITS) private readonly limits: JobUploadLimits,
  ) {}

  @Post('jobs')
  @HttpCode(202)
  async submit(
    @Req() req: FastifyRequest,
    @Body() body: unknown,
    @Query('task') taskParam: string | undefined,
  ): Promise<object> {
    const ctx = callContext('http', (name) => req.headers[name], req.meshReceivedAt);
    const tenant = this.callers.authenticate(ctx);
    const idempotencyKey = parseRequest(idempotencyKeySchema, req.headers['idempotency-key']);
    const common = {
      ...(ctx.stickyKey === undefined ? {} : { stickyKey: ctx.stickyKey }),
      ...(idempotencyKey === undefined ? {} : { idempotencyKey }),
      // Started and ended by the trace hook (tracing on only).
      ...(req.meshSpan ? { span: req.meshSpan } : {}),
    };
    let cmd: SubmitJobCommand;
    if (isNdjson(req)) {
      const stream = body as Readable;
      if (!taskParam) {
        stream.resume();
        throw new RequestValidationError([{ path: 'task', message: 'is required (?task=)' }]);
      }
      cmd = {
        ...common,
        task: parseRequest(taskQuerySchema, { task: taskParam }).task,
        items: (maxItems) => parseNdjsonItems(stream, { ...this.limits, maxItems }),
        discard: () => drain(stream),
      };
    } else {
      const parsed = parseRequest(submitJsonSchema, body);
      cmd = {
        ...common,
        ...(parsed.stickyKey === undefined ? {} : { stickyKey: parsed.stickyKey }),
        task: parsed.task,
        items: (maxItems) => jsonItems(parsed.items, maxItems),
      };
    }
    return this.submissions.submit(tenant, cmd);
  }

  @Get('jobs')
  list(@Headers('authorization') authz: string | undefined, @Query() q: unknown): Promise<object> {
    const viewer = { tenant: this.callers.authenticateHeader(authz) };
    return this.listFor(viewer, q);
  }

  @Get('jobs/:id')
  status(
    @Headers('authorization') authz: string | undefined,
    @Param('id') id: string,
  ): Promise<JobStatusView> {
    return this.query.status(this.tenantViewer(authz), id);
  }

  @Delete('jobs/:id')
  cancel(
    @Headers('authorization') authz: string | undefined,
    @Param('id') id: string,
  ): Promise<JobStatusView> {
    return this.query.cancel(this.tenantViewer(authz), id);
  }

  @Get('jobs/:id/results')
  async results(
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
    @Param('id') id: string,
    @Query('from') from: string | undefined,
  ): Promise<void> {
    const viewer = this.tenantViewer(req.headers.authorization);
    const start = parseRequest(fromSchema, from);
    await this.query.status(viewer, id);
    const open = this.streams.track();
    req.raw.once('close', open.done);
    const chunks = this.query.results(viewer, id, start, open.signal);
    streamRaw(req, reply, { 'content-type': NDJSON }, finishing(ndjson(chunks), open.done));
  }

  @Get('jobs/:id/events')
  async events(
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
    @Param('id') id: string,
  ): Promise<void> {
    const viewer = this.tenantViewer(req.headers.authorization);
    await this.query.status(viewer, id);
    const open = this.streams.track();
    req.raw.once('close', open.done);
    const events = this.query.events(viewer, id, open.signal);
    streamRaw(
      req,
      reply,
      { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' },
      finishing(sse(events), open.done),
    );
  }

  @Get('admin/jobs')
  @UseGuards(AdminKeyGuard)
  adminList(@Query() q: unknown): Promise<object> {
    return this.listFor({ admin: true }, q);
  }

  @Get('admin/jobs/:id')
  @UseGuards(AdminKeyGuard)
  adminStatus(@Param('id') id: string): Promise<JobStatusView> {
    return this.query.status({ admin: true }, id);
  }

  @Delete('admin/jobs/:id')
  @UseGuards(AdminKeyGuard)
  adminCancel(@Param('id') id: string): Promise<JobStatusView> {
    return this.query.cancel({ admin: true }, id);
  }

  private tenantViewer(authz: string | undefined): JobViewer {
    return { tenant: this.callers.authenticateHeader(authz) };
  }

  private async listFor(viewer: JobViewer, q: unknown): Promise<object> {
    const query = parseRequest(listQuerySchema, q);
    return { jobs: await this.query.list(viewer, query) };
  }
}

function isNdjson(req: FastifyRequest): boolean {
  return (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() === NDJSON;
}

async function drain(stream: Readable): Promise<void> {
  for await (const _ of stream) {
    // discarded: the upload names a job that exists already
  }
}

async function* ndjson(chunks: AsyncIterable<JobResultLine[]>): AsyncGenerator<string> {
  for await (const lines of chunks) yield lines.map((l) => `${JSON.stringify(l)}\n`).join('');
}

async function* sse(events: AsyncIterable<JobStatusView>): AsyncGenerator<string> {
  let last: JobStatusView | undefined;
  for await (const view of events) {
    last = view;
    yield `event: progress\ndata: ${JSON.stringify(view)}\n\n`;
  }
  if (last && ['completed', 'failed', 'cancelled'].includes(last.state)) {
    yield `event: end\ndata: ${JSON.stringify(last)}\n\n`;
  }
}

async function* finishing<T>(source: AsyncIterable<T>, done: () => void): AsyncGenerator<T> {
  try {
    yield* source;
  } finally {
    done();
  }
}
