import {
  Body,
  Headers,
  Controller,
  Get,
  HttpCode,
  Inject,
  Param,
  Post,
  Res,
  UseFilters,
} from '@nestjs/common';
import { parseJsonInferRequest, toJsonInferResponse, type JsonParameterValue } from '@mesh/kserve';
import { modelConfigToProtoJson } from '@mesh/model-repository';
import type { FastifyReply } from 'fastify';
import type { InferRequest } from '../core/inference.types';
import {
  checkUnloadParameters,
  loadOptionsFrom,
  type LoadParameterValue,
} from '../core/load-options';
import { InvalidInferenceError } from '../core/model-host.errors';
import {
  SERVER_EXTENSIONS,
  SERVER_NAME,
  SERVER_VERSION,
  ModelHostService,
} from '../core/model-host.service';
import { toCodecTensor, toHostTensor } from '../core/tensor-edge.mapper';
import { statsToProto } from '../grpc/statistics.mapper';
import { HostErrorFilter } from './host-error.filter';

function intParam(params: Record<string, JsonParameterValue>, key: string): number {
  const v = params[key];
  if (v === undefined) return 0;
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) {
    throw new InvalidInferenceError(
      `parameter '${key}' must be an integer >= 0 (got ${JSON.stringify(v)})`,
    );
  }
  return v;
}

/** `{"parameters": {...}}` of a repository load/unload body; an empty body has none. */
function repositoryParameters(body: unknown): Record<string, LoadParameterValue> {
  if (body === undefined || body === null || body === '') return {};
  if (typeof body !== 'object' || Array.isArray(body))
    throw new InvalidInferenceError('the request body must be a JSON object');
  const params = (body as { parameters?: unknown }).parameters;
  if (params === undefined) return {};
  if (typeof params !== 'object' || params === null || Array.isArray(params))
    throw new InvalidInferenceError("'parameters' must be a JSON object");
  const out: Record<string, LoadParameterValue> = {};
  for (const [k, v] of Object.entries(params as Record<string, unknown>)) {
    if (typeof v !== 'string' && typeof v !== 'number' && typeof v !== 'boolean')
      throw new InvalidInferenceError(`parameter '${k}' must be a string, number or boolean`);
    out[k] = v;
  }
  return out;
}

/** KServe v2 REST (JSON) on the HTTP port; each route maps to one ModelHostService call. */
@Controller('v2')
@UseFilters(HostErrorFilter)
export class KserveHttpController {
  constructor(@Inject(ModelHostService) private readonly host: ModelHostService) {}

  @Get('health/live')
  live(@Res({ passthrough: true }) reply: FastifyReply): { live: boolean } {
    const live = this.host.isLive();
    void reply.status(live ? 200 : 400);
    return { live };
  }

  @Get('health/ready')
  ready(@Res({ passthrough: true }) reply: FastifyReply): { ready: boolean } {
    const ready = this.host.isReady();
    void reply.status(ready ? 200 : 400);
    return { ready };
  }

  @Get()
  serverMetadata(): { name: string; version: string; extensions: string[] } {
    return { name: SERVER_NAME, version: SERVER_VERSION, extensions: SERVER_EXTENSIONS };
  }

  @Get('models/stats')
  allStats(): unknown {
    return { model_stats: this.host.statistics('', '').map(statsToProto) };
  }

  @Get(['models/:model', 'models/:model/versions/:version'])
  metadata(@Param('model') model: string, @Param('version') version?: string): unknown {
    return this.host.metadata(model, version ?? '');
  }

  @Get(['models/:model/ready', 'models/:model/versions/:version/ready'])
  modelReady(
    @Res({ passthrough: true }) reply: FastifyReply,
    @Param('model') model: string,
    @Param('version') version?: string,
  ): { ready: boolean } {
    const ready = this.host.isModelReady(model, version ?? '');
    void reply.status(ready ? 200 : 400);
    return { ready };
  }

  @Get(['models/:model/config', 'models/:model/versions/:version/config'])
  config(@Param('model') model: string, @Param('version') version?: string): unknown {
    return modelConfigToProtoJson(this.host.config(model, version ?? ''));
  }

  @Get(['models/:model/stats', 'models/:model/versions/:version/stats'])
  stats(@Param('model') model: string, @Param('version') version?: string): unknown {
    return { model_stats: this.host.statistics(model, version ?? '').map(statsToProto) };
  }

  @Post(['models/:model/infer', 'models/:model/versions/:version/infer'])
  @HttpCode(200)
  async infer(
    @Res({ passthrough: true }) reply: FastifyReply,
    @Headers('x-request-id') requestId: string | undefined,
    @Body() body: unknown,
    @Param('model') model: string,
    @Param('version') version?: string,
  ): Promise<unknown> {
    if (requestId) void reply.header('x-request-id', requestId);
    const parsed = parseJsonInferRequest(body);
    const req: InferRequest = {
      id: parsed.id ?? '',
      model,
      version: version ?? '',
      inputs: parsed.inputs.map(toHostTensor),
      outputs: parsed.outputs.map((o) => o.name),
      priority: intParam(parsed.parameters, 'priority'),
      timeoutUs: intParam(parsed.parameters, 'timeout'),
    };
    const res = await this.host.infer(req);
    return toJsonInferResponse({
      modelName: res.model,
      modelVersion: res.version,
      id: res.id,
      outputs: res.outputs.map(toCodecTensor),
    });
  }

  @Post('repository/index')
  @HttpCode(200)
  async index(@Body() body: unknown): Promise<unknown> {
    const ready =
      typeof body === 'object' && body !== null && (body as { ready?: unknown }).ready === true;
    return this.host.index(ready);
  }

  @Post('repository/models/:model/load')
  @HttpCode(200)
  async load(@Param('model') model: string, @Body() body: unknown): Promise<Record<string, never>> {
    await this.host.load(model, loadOptionsFrom(repositoryParameters(body)));
    return {};
  }

  @Post('repository/models/:model/unload')
  @HttpCode(200)
  async unload(
    @Param('model') model: string,
    @Body() body: unknown,
  ): Promise<Record<string, never>> {
    checkUnloadParameters(repositoryParameters(body));
    await this.host.unload(model);
    return {};
  }
}
