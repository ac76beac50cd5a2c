import * as grpc from '@grpc/grpc-js';
import { readFileSync } from 'node:fs';
import { loadInferencePackage, type InferencePackage } from './inference-proto-loader';
import { BackendError } from './kserve.errors';
import { AskUnaryInstead, LoneInferStream } from './lone-infer-stream';
import type { TlsOptions } from './kserve-pool.types';
import { TRACEPARENT_PARAMETER } from './kserve.types';
import type {
  ModelConfigResponse,
  ModelInferRequest,
  ModelInferResponse,
  ModelMetadataResponse,
  ModelReadyResponse,
  ModelStatisticsRequest,
  ModelStatisticsResponse,
  RepositoryIndexRequest,
  RepositoryIndexResponse,
  RepositoryModelLoadRequest,
  RepositoryModelUnloadRequest,
  ServerLiveResponse,
  ServerMetadataResponse,
  ServerReadyResponse,
} from './kserve.types';

export interface CallOptions {
  /** Relative deadline of this one RPC. */
  deadlineMs: number;
  metadata?: Readonly<Record<string, string>>;
  /** Cancels the RPC when it aborts (the caller above gave up), so the backend can drop it. */
  signal?: AbortSignal;
}

export interface KServeClientOptions {
  address: string;
  credentials: grpc.ChannelCredentials;
  maxMessageBytes: number;
  channelOptions?: grpc.ChannelOptions;
  pkg?: InferencePackage;
  /**
   * Send an inference over one long-lived ModelStreamInfer call when no other of this client's
   * is on it, instead of a unary call each (see LoneInferStream). Default true.
   */
  loneStream?: boolean;
}

type UnaryFn = (
  req: unknown,
  md: grpc.Metadata,
  opts: grpc.CallOptions,
  cb: (err: grpc.ServiceError | null, res: unknown) => void,
) => grpc.ClientUnaryCall;

/** Plaintext, or TLS from PEM files (CA, and client cert/key for mTLS). */
export function createChannelCredentials(tls?: TlsOptions): grpc.ChannelCredentials {
  if (!tls || (!tls.caFile && !tls.certFile && !tls.keyFile))
    return grpc.credentials.createInsecure();
  if (Boolean(tls.certFile) !== Boolean(tls.keyFile)) {
    throw new Error('TLS client certificate and key must be given together');
  }
  const read = (f?: string) => (f ? readFileSync(f) : null);
  return grpc.credentials.createSsl(read(tls.caFile), read(tls.keyFile), read(tls.certFile));
}

/**
 * One KServe v2 backend over one long-lived grpc-js channel. Every call
 * carries a deadline; failures become BackendError with the gRPC status.
 */
export class KServeClient {
  readonly address: string;
  private readonly client: grpc.Client;
  private readonly lone?: LoneInferStream;

  constructor(opts: KServeClientOptions) {
    this.address = opts.address;
    const { InferenceClient } = opts.pkg ?? loadInferencePackage();
    this.client = new InferenceClient(opts.address, opts.credentials, {
      'grpc.max_send_message_length': opts.maxMessageBytes,
      'grpc.max_receive_message_length': opts.maxMessageBytes,
      'grpc.keepalive_time_ms': 30_000,
      'grpc.keepalive_timeout_ms': 10_000,
      ...opts.channelOptions,
    });
    if (opts.loneStream !== false) {
      const client = this.client as unknown as Record<string, (md: grpc.Metadata) => never>;
      this.lone = new LoneInferStream(opts.address, (md) => client.ModelStreamInfer!(md));
    }
  }

  serverLive(o: CallOptions) {
    return this.unary<ServerLiveResponse>('ServerLive', {}, o);
  }

  serverReady(o: CallOptions) {
    return this.unary<ServerReadyResponse>('ServerReady', {}, o);
  }

  serverMetadata(o: CallOptions) {
    return this.unary<ServerMetadataResponse>('ServerMetadata', {}, o);
  }

  modelReady(name: string, version: string, o: CallOptions) {
    return this.unary<ModelReadyResponse>('ModelReady', { name, version }, o);
  }

  modelMetadata(name: string, version: string, o: CallOptions) {
    return this.unary<ModelMetadataResponse>('ModelMetadata', { name, version }, o);
  }

  modelConfig(name: string, version: string, o: CallOptions) {
    return this.unary<ModelConfigResponse>('ModelConfig', { name, version }, o);
  }

  modelStatistics(req: ModelStatisticsRequest, o: CallOptions) {
    return this.unary<ModelStatisticsResponse>('ModelStatistics', req, o);
  }

  repositoryIndex(req: RepositoryIndexRequest, o: CallOptions) {
    return this.unary<RepositoryIndexResponse>('RepositoryIndex', req, o);
  }

  repositoryModelLoad(req: RepositoryModelLoadRequest, o: CallOptions) {
    return this.unary<Record<string, never>>('RepositoryModelLoad', req, o);
  }

  repositoryModelUnload(req: RepositoryModelUnloadRequest, o: CallOptions) {
    return this.unary<Record<string, never>>('RepositoryModelUnload', req, o);
  }

  /**
   * One inference: on the lone stream when it is free, else as a unary call. A stream's
   * metadata is shared by every request it carries, so a traced request's `traceparent` rides
   * in its own request parameters there (TRACEPARENT_PARAMETER), and in metadata on a unary call.
   */
  async modelInfer(req: ModelInferRequest, o: CallOptions): Promise<ModelInferResponse> {
    if (!this.lone?.idle) return this.unary<ModelInferResponse>('ModelInfer', req, o);
    const deadlineAt = Date.now() + o.deadlineMs;
    const traceparent = o.metadata?.traceparent;
    const streamed =
      traceparent === undefined
        ? req
        : {
            ...req,
            parameters: {
              ...req.parameters,
              [TRACEPARENT_PARAMETER]: { string_param: traceparent },
            },
          };
    try {
      return await this.lone.infer(streamed, o);
    } catch (err: unknown) {
      if (!(err instanceof AskUnaryInstead)) throw err;
      return this.unary<ModelInferResponse>('ModelInfer', req, {
        ...o,
        deadlineMs: deadlineAt - Date.now(),
      });
    }
  }

  /** Channel state without triggering a connection attempt. */
  connectivity(): grpc.connectivityState {
    return this.client.getChannel().getConnectivityState(false);
  }

  close(): void {
    this.lone?.close();
    this.client.close();
  }

  private unary<Res>(method: string, req: unknown, o: CallOptions): Promise<Res> {
    const md = new grpc.Metadata();
    for (const [k, v] of Object.entries(o.metadata ?? {})) md.set(k, v);
    const fn = (this.client as unknown as Record<string, UnaryFn>)[method];
    if (!fn) return Promise.reject(new Error(`unknown method ${method}`));
    return new Promise<Res>((resolve, reject) => {
      const onAbort = () => call.cancel();
      const call = fn.call(
        this.client,
        req,
        md,
        { deadline: Date.now() + Math.max(1, o.deadlineMs) },
        (err, res) => {
          o.signal?.removeEventListener('abort', onAbort);
          if (err)
            reject(new BackendError(this.address, method, err.code, err.details || err.message));
          else resolve(res as Res);
        },
      );
      if (o.signal?.aborted) call.cancel();
      else o.signal?.addEventListener('abort', onAbort, { once: true });
    });
  }
}
