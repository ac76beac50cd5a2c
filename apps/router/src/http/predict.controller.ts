import { Body, Controller, Get, Headers, HttpCode, Post, Req } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiHeader, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { CallerService } from '../core/caller.service';
import type {
  CallContext,
  Prediction,
  PredictBatchResult,
  PredictResult,
} from '../core/predict.commands';
import { PredictService } from '../core/predict.service';
import { TasksService } from '../core/tasks.service';
import { callContext } from './call-context';
import { OPENAPI } from './openapi.schemas';
import { parseRequest, predictBatchSchema, predictSchema, tokenizeSchema } from './request.schemas';

/** The public predict API over HTTP/JSON; the gRPC Predictor service mirrors it. */
@ApiTags('predict')
@ApiBearerAuth()
@ApiHeader({ name: 'x-request-id', required: false, description: 'echoed; generated if absent' })
@ApiHeader({ name: 'x-mesh-sticky-key', required: false, description: 'same key, same version' })
@Controller('v1')
export class PredictController {
  constructor(
    private readonly callers: CallerService,
    private readonly predictor: PredictService,
    private readonly tasks: TasksService,
  ) {}

  @Post('predict')
  @HttpCode(200)
  @ApiBody({ schema: OPENAPI.predictRequest })
  @ApiOkResponse({ schema: OPENAPI.predictResponse })
  async predict(@Req() req: FastifyRequest, @Body() body: unknown): Promise<object> {
    const ctx = contextOf(req);
    const tenant = this.callers.authenticate(ctx);
    const result = await this.predictor.predict(ctx, tenant, parseRequest(predictSchema, body));
    return predictJson(result);
  }

  // `::` is find-my-way's escape for a literal colon: the path is `/v1/predict:batch`.
  @Post('predict::batch')
  @HttpCode(200)
  @ApiBody({ schema: OPENAPI.predictBatchRequest })
  @ApiOkResponse({ schema: OPENAPI.predictBatchResponse })
  async predictBatch(@Req() req: FastifyRequest, @Body() body: unknown): Promise<object> {
    const ctx = contextOf(req);
    const tenant = this.callers.authenticate(ctx);
    const cmd = parseRequest(predictBatchSchema, body);
    const result = await this.predictor.predictBatch(ctx, tenant, cmd);
    return batchJson(result);
  }

  @Post('tokenize')
  @HttpCode(200)
  @ApiBody({ schema: OPENAPI.tokenizeRequest })
  @ApiOkResponse({ schema: OPENAPI.tokenizeResponse })
  async tokenize(@Req() req: FastifyRequest, @Body() body: unknown): Promise<object> {
    const ctx = contextOf(req);
    const tenant = this.callers.authenticate(ctx);
    return this.predictor.tokenize(ctx, tenant, parseRequest(tokenizeSchema, body));
  }

  @Get('tasks')
  @ApiOkResponse({ schema: OPENAPI.tasksResponse })
  listTasks(@Headers('authorization') authorization: string | undefined): object {
    const tenant = this.callers.authenticateHeader(authorization);
    return { tasks: this.tasks.list(tenant) };
  }
}

function contextOf(req: FastifyRequest): CallContext {
  return callContext('http', (name) => req.headers[name], req.meshReceivedAt);
}

/** The JSON shape of one prediction: classification fields or an embedding. */
export function predictionJson(p: Prediction): object {
  return p.kind === 'classification'
    ? { label: p.label, score: p.score, scores: p.scores }
    : { embedding: p.embedding };
}

function predictJson(r: PredictResult): object {
  return {
    model: r.model,
    version: r.version,
    ...predictionJson(r.prediction),
    latencyMs: r.latencyMs,
  };
}

function batchJson(r: PredictBatchResult): object {
  return {
    model: r.model,
    version: r.version,
    results: r.results.map(predictionJson),
    latencyMs: r.latencyMs,
  };
}
