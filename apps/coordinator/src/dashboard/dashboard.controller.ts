import {
  Body,
  Controller,
  Get,
  HttpCode,
  Inject,
  Param,
  Post,
  Put,
  Req,
  Res,
  UseGuards,
} from '@nestjs/common';
import { AdminKeyGuard, EnumParamPipe, OpenStreamsRegistry, streamRaw } from '@mesh/telemetry';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DASHBOARD_FEEDS } from './dashboard-tokens';
import {
  DASHBOARD_VIEWS,
  feedLines,
  type DashboardFeeds,
  type DashboardView,
} from './dashboard-feeds';
import { JobsViewReader, type JobRow } from './jobs-view';
import { RouteWeightsEditor, type WeightsEditResult } from './route-weights-editor';

/** The audit actor of every routing change made from the dashboard. */
export const DASHBOARD_ACTOR = 'dashboard';

const viewPipe = new EnumParamPipe(DASHBOARD_VIEWS);

/**
 * `/v1/dashboard`: what the operator dashboard reads (one snapshot per view, or its live
 * NDJSON stream) and the writes it makes that the rollout API does not cover.
 */
@Controller('v1/dashboard')
@UseGuards(AdminKeyGuard)
export class DashboardController {
  constructor(
    @Inject(DASHBOARD_FEEDS) private readonly feeds: DashboardFeeds,
    @Inject(RouteWeightsEditor) private readonly editor: RouteWeightsEditor,
    @Inject(JobsViewReader) private readonly jobs: JobsViewReader,
    @Inject(OpenStreamsRegistry) private readonly streams: OpenStreamsRegistry,
  ) {}

  @Get(':view')
  snapshot(@Param('view', viewPipe) view: DashboardView): Promise<unknown> {
    return this.feeds[view].read();
  }

  /** NDJSON (fetch-readable with an Authorization header, unlike EventSource). */
  @Get(':view/stream')
  stream(
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
    @Param('view', viewPipe) view: DashboardView,
  ): void {
    const open = this.streams.track();
    req.raw.once('close', open.done);
    streamRaw(
      req,
      reply,
      { 'content-type': 'application/x-ndjson', 'cache-control': 'no-cache' },
      feedLines(view, this.feeds[view], open.signal),
    );
  }

  @Put('routes/:tenant/:task/weights')
  editWeights(
    @Param('tenant') tenant: string,
    @Param('task') task: string,
    @Body() body: unknown,
  ): Promise<WeightsEditResult> {
    return this.editor.apply(tenant, task, body, DASHBOARD_ACTOR);
  }

  @Post('jobs/:id/cancel')
  @HttpCode(200)
  cancelJob(@Param('id') id: string): Promise<JobRow> {
    return this.jobs.cancel(id);
  }

  @Get('jobs/:id/results')
  async jobResults(
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
    @Param('id') id: string,
  ): Promise<void> {
    await this.jobs.exists(id);
    streamRaw(
      req,
      reply,
      {
        'content-type': 'application/x-ndjson',
        'content-disposition': `attachment; filename="${id.replace(/[^\w.-]/g, '_')}.ndjson"`,
      },
      ndjson(this.jobs.results(id)),
    );
  }
}

async function* ndjson(lines: AsyncIterable<unknown>): AsyncGenerator<string> {
  for await (const line of lines) yield `${JSON.stringify(line)}\n`;
}
