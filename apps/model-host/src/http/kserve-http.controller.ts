import { Body, Headers, Controller, Get, HttpCode, Inject, Param, Post, Res } from '@nestjs/common';
import { modelConfigToProtoJson } from '@mesh/model-repository';
import type { FastifyReply } from 'fastify';
import { HostAccessLog, requestIdOf, type HostCall } from '../core/host-access-log';
import {
  checkUnloadParameters,
  loadOptionsFrom,
  type LoadParameterValue,
} from '../core/load-options';
import { ERROR_STATUS } from '../core/error-status-map';
import { endInferSpan, startInferSpan } from '../core/infer.trace';
import { InvalidInferenceError } from '../core/model-host.errors';
import { ModelHostService, type ServerMetadata } from '../core/model-host.service';
import { rawBinaryInput } from '../core/raw-binary-request';
import { statsToProto } from '../grpc/statistics.codec';
import {
  HEADER_LENGTH,
  decodeHttpInferRequest,
  encodeHttpInferResponse,
  parseJsonObject,
  splitInferBody,
  type HttpInferRequest,
} from './binary-tensor.codec';

/** The route template the infer span names (OpenTelemetry's http.route: low cardinality). */
const INFER_ROUTE = '/v2/models/{model}/infer';

/** `{"parameters": {...}}` of a repository load/unload body; an empty body has none. */
function repositoryParameters(body: Buffer | undefined): Record<string, LoadParameterValue> {
  const params = parseJsonObject(body, true).parameters;
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

/**
 * Aborts when the connection closes before the answer was written (the caller gave up), so a
 * request still queued for a batch is dropped instead of run for nobody.
 */
function callerGone(reply: FastifyReply): AbortSignal {
  const gone = new AbortController();
  const res = reply.raw;
  // The request's socket, not the response's: a pipelined response has none until its turn.
  if (reply.request.raw.socket.destroyed) gone.abort();
  else res.once('close', () => (res.writableFinished ? undefined : gone.abort()));
  return gone.signal;
}

/** KServe v2 REST (JSON) on the HTTP port; each route maps to one ModelHostService call. */
@Controller('v2')
export class KserveHttpController {
  constructor(
    @Inject(ModelHostService) private readonly host: ModelHostService,
    @Inject(HostAccessLog) private readonly access: HostAccessLog,
  ) {}

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
  serverMetadata(): ServerMetadata {
    return this.host.serverMetadata();
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

  /**
   * KServe v2 JSON, with Triton's binary tensor data (Inference-Header-Content-Length, including
   * 0 = raw binary input) and classification extensions. Any content type is accepted, as
   * Triton's clients send binary requests without one.
   */
  @Post(['models/:model/infer', 'models/:model/versions/:version/infer'])
  @HttpCode(200)
  async infer(
    @Res({ passthrough: true }) reply: FastifyReply,
    @Headers('x-request-id') requestId: string | undefined,
    @Headers('traceparent') traceparent: string | undefined,
    @Headers(HEADER_LENGTH) headerLength: string | undefined,
    @Body() body: Buffer | undefined,
    @Param('model') model: string,
    @Param('version') version = '',
  ): Promise<unknown> {
    if (requestId) void reply.header('x-request-id', requestId);
    const call: HostCall = {
      requestId: requestIdOf(requestId, undefined),
      transport: 'http',
      method: 'POST infer',
      model,
      version,
    };
    let binaryOutput: HttpInferRequest['binaryOutput'] = () => true;
    const signal = callerGone(reply);
    const span = startInferSpan(`POST ${INFER_ROUTE}`, traceparent, call, {
      'http.request.method': 'POST',
      'http.route': INFER_ROUTE,
    });
    const inference = this.access.around(call, () => {
      const decoded = this.decodeInfer(model, version, body, headerLength);
      call.requestId = requestIdOf(requestId, decoded.id);
      binaryOutput = decoded.binaryOutput;
      return this.host.infer({
        id: decoded.id,
        model,
        version,
        inputs: decoded.inputs,
        outputs: decoded.outputs,
        classification: decoded.classification,
        priority: decoded.priority,
        timeoutUs: decoded.timeoutUs,
        signal,
        ...(span ? { span } : {}),
      });
    });
    const res = await (span
      ? endInferSpan(span, inference, signal, (code) => [
          'http.response.status_code',
          ERROR_STATUS[code].http,
        ])
      : inference);
    const encoded = encodeHttpInferResponse(res, binaryOutput);
    if ('json' in encoded) return encoded.json;
    void reply
      .header('content-type', 'application/octet-stream')
      .header(HEADER_LENGTH, String(encoded.headerLength));
    return encoded.body;
  }

  /** JSON (with binary tensor data) or, with a header length of 0, Triton's raw binary request. */
  private decodeInfer(
    model: string,
    version: string,
    body: Buffer | undefined,
    headerLength: string | undefined,
  ): HttpInferRequest {
    const { header, binary } = splitInferBody(body, headerLength);
    if (header) return decodeHttpInferRequest(parseJsonObject(header), binary);
    return {
      id: '',
      inputs: [rawBinaryInput(this.host.spec(model, version), binary)],
      outputs: [],
      classification: {},
      priority: 0,
      timeoutUs: 0,
      binaryOutput: () => true,
    };
  }

  @Post('repository/index')
  @HttpCode(200)
  async index(@Body() body: Buffer | undefined): Promise<unknown> {
    const json = parseJsonObject(body, true);
    if (json.ready !== undefined && typeof json.ready !== 'boolean') {
      throw new InvalidInferenceError("'ready' must be true or false");
    }
    return this.host.index(json.ready === true);
  }

  @Post('repository/models/:model/load')
  @HttpCode(200)
  async load(
    @Param('model') model: string,
    @Body() body: Buffer | undefined,
  ): Promise<Record<string, never>> {
    await this.host.load(model, loadOptionsFrom(repositoryParameters(body)));
    return {};
  }

  @Post('repository/models/:model/unload')
  @HttpCode(200)
  async unload(
    @Param('model') model: string,
    @Body() body: Buffer | undefined,
  ): Promise<Record<string, never>> {
    checkUnloadParameters(repositoryParameters(body));
    await this.host.unload(model);
    return {};
  }
}
