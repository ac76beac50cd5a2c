import { Body, Controller, Get, HttpCode, Post, Req } from '@nestjs/common';
import type { Tenant } from '@mesh/routing';
import type { FastifyRequest } from 'fastify';
import { CallerService } from '../tenancy/caller.service';
import type {
  CallContext,
  Prediction,
  PredictBatchResult,
  PredictResult,
} from '../predict/predict-commands';
import { PredictService } from '../predict/predict.service';
import { TasksService } from '../catalog/tasks.service';
import { callContext } from './call-context';
import { parseRequest, predictBatchSchema, predictSchema, tokenizeSchema } from './request.schema';
import type { PredictBatchJson, PredictJson, PredictionJson } from './response.schema';

/**
 * The public predict API over HTTP/JSON; the gRPC Predictor service mirrors it. Its OpenAPI
 * description is `predict.openapi.ts`, generated from the same zod schemas.
 */
@Controller('v1')
export class PredictController {
  constructor(
    private readonly callers: CallerService,
    private readonly predictor: PredictService,
    private readonly tasks: TasksService,
  ) {}

  @Post('predict')
  @HttpCode(200)
  async predict(@Req() req: FastifyRequest, @Body() body: unknown): Promise<object> {
    const ctx = contextOf(req);
    const tenant = this.authenticate(ctx);
    const result = await this.predictor.predict(ctx, tenant, parseRequest(predictSchema, body));
    return predictJson(result);
  }

  // `::` is find-my-way's escape for a literal colon: the path is `/v1/predict:batch`.
  @Post('predict::batch')
  @HttpCode(200)
  async predictBatch(@Req() req: FastifyRequest, @Body() body: unknown): Promise<object> {
    const ctx = contextOf(req);
    const tenant = this.authenticate(ctx);
    const cmd = parseRequest(predictBatchSchema, body);
    const result = await this.predictor.predictBatch(ctx, tenant, cmd);
    return batchJson(result);
  }

  @Post('tokenize')
  @HttpCode(200)
  async tokenize(@Req() req: FastifyRequest, @Body() body: unknown): Promise<object> {
    const ctx = contextOf(req);
    const tenant = this.authenticate(ctx);
    return this.predictor.tokenize(ctx, tenant, parseRequest(tokenizeSchema, body));
  }

  @Get('tasks')
  listTasks(@Req() req: FastifyRequest): object {
    const ctx = contextOf(req);
    const tenant = this.authenticate(ctx);
    return { tasks: this.tasks.list(tenant) };
  }

  /** The caller's tenant; a request refused after this point is counted and logged under it. */
  private authenticate(ctx: CallContext): Tenant {
    const tenant = this.callers.authenticate(ctx);
    ctx.served = { tenant: tenant.name };
    return tenant;
  }
}

function contextOf(req: FastifyRequest): CallContext {
  const ctx = callContext('http', (name) => req.headers[name], req.meshReceivedAt, req.meshSignal);
  if (req.meshSpan) ctx.span = req.meshSpan;
  req.meshCall = ctx;
  return ctx;
}

/** The JSON shape of one prediction: classification fields or an embedding. */
export function predictionJson(p: Prediction): PredictionJson {
  return p.kind === 'classification'
    ? { label: p.label, score: p.score, scores: p.scores }
    : { embedding: p.embedding };
}

function predictJson(r: PredictResult): PredictJson {
  return {
    model: r.model,
    version: r.version,
    ...predictionJson(r.prediction),
    latencyMs: r.latencyMs,
    ...coldStartJson(r),
  };
}

function batchJson(r: PredictBatchResult): PredictBatchJson {
  return {
    model: r.model,
    version: r.version,
    results: r.results.map(predictionJson),
    latencyMs: r.latencyMs,
    ...coldStartJson(r),
  };
}

function coldStartJson(r: { coldStartMs?: number }): { coldStartMs?: number } {
  return r.coldStartMs === undefined ? {} : { coldStartMs: r.coldStartMs };
}
