import { status as GrpcStatus } from '@grpc/grpc-js';
import { refreshBackend } from './backend-discovery';
import {
  asFinalError,
  isTransient,
  isUnavailable,
  mayHaveBeenDelivered,
  noCandidateError,
  nothingListens,
} from './backend-failure-policy';
import { buildInferRequest, decodeInferResponse } from './infer-request.codec';
import { KServeBackend } from './kserve-backend';
import { createChannelCredentials, KServeClient } from './kserve-client';
import { BackendError, isModelNotHere } from './kserve.errors';
import type {
  BackendStatus,
  BreakerOptions,
  InferCall,
  InferResult,
  KServePoolOptions,
  ReadyModel,
} from './kserve-pool.types';
import { DEFAULT_MAX_MESSAGE_BYTES } from './kserve-pool.types';
import type { ModelConfigMessage } from './kserve.types';
import { DEFAULT_RETRY, runWithRetries, type RetryOptions } from './retry-policy';

export interface ModelConfigOptions {
  version?: string;
  /** Ask this backend (`host:port`) rather than any that serves the model. */
  backend?: string;
  deadlineMs?: number;
}

/**
 * The KServe v2 backends of KSERVE_ENDPOINTS: one channel each, periodic
 * health and model discovery, a circuit breaker each, least-in-flight
 * selection among healthy backends serving (model, version), deadlines and
 * jittered retries on UNAVAILABLE. See docs/adr/0001-kserve-v2-over-grpc.md.
 */
export class KServeBackendPool {
  private readonly backends: KServeBackend[];
  private readonly retry: RetryOptions;
  private readonly deadlineMs: number;
  private readonly probeDeadlineMs: number;
  private readonly healthIntervalMs: number;
  private timer?: NodeJS.Timeout;
  private refreshing?: Promise<void>;
  private roundRobin = 0;

  constructor(private readonly options: KServePoolOptions) {
    if (options.endpoints.length === 0)
      throw new Error('KServeBackendPool needs at least one endpoint');
    this.retry = { ...DEFAULT_RETRY, ...options.retry };
    this.deadlineMs = options.deadlineMs ?? 10_000;
    this.probeDeadlineMs = options.probeDeadlineMs ?? 1_000;
    this.healthIntervalMs = options.healthIntervalMs ?? 2_000;
    const breaker: BreakerOptions = {
      consecutiveFailures: 5,
      halfOpenAfterMs: 5_000,
      ...options.breaker,
    };
    const credentials = createChannelCredentials(options.tls);
    const maxMessageBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
    this.backends = [...new Set(options.endpoints)].map((address) => {
      const client = new KServeClient({
        address,
        credentials,
        maxMessageBytes,
        channelOptions: options.channelOptions,
        loneStream: options.loneStream,
      });
      const backend = new KServeBackend(client, breaker);
      backend.breaker.onStateChange(() =>
        options.log?.(backend.circuit === 'closed' ? 'info' : 'warn', 'kserve_circuit', {
          backend: address,
          state: backend.circuit,
        }),
      );
      return backend;
    });
  }

  /** First discovery round (never throws for unreachable backends), then periodic refresh. */
  async start(): Promise<void> {
    await this.refresh();
    this.timer ??= setInterval(() => void this.refresh(), this.healthIntervalMs);
    this.timer.unref();
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.refreshing;
    for (const b of this.backends) b.client.close();
  }

  /** Health + discovery of every backend now (rounds never overlap). */
  refresh(): Promise<void> {
    this.refreshing ??= Promise.all(
      this.backends.map((b) => refreshBackend(b, this.probeDeadlineMs, this.options.log)),
    ).then(() => {
      this.refreshing = undefined;
    });
    return this.refreshing;
  }

  status(): BackendStatus[] {
    return this.backends.map((b) => b.status());
  }

  /** Backends that may take (model, version) now, least loaded first. */
  backendsFor(model: string, version?: string): BackendStatus[] {
    return this.candidates(model, version)
      .sort((a, b) => a.inFlight - b.inFlight)
      .map((b) => b.status());
  }

  /** Every READY (model, version) with the available backends serving it. */
  readyModels(): ReadyModel[] {
    const byKey = new Map<string, ReadyModel>();
    for (const b of this.backends.filter((x) => x.available())) {
      for (const { model, version } of b.servedModels()) {
        const k = `${model}@${version}`;
        const entry = byKey.get(k) ?? { model, version, backends: [] };
        entry.backends.push(b.address);
        byKey.set(k, entry);
      }
    }
    return [...byKey.values()].sort((a, b) =>
      `${a.model}@${a.version}`.localeCompare(`${b.model}@${b.version}`),
    );
  }

  /** The long-lived client of one backend (admin calls: load/unload, statistics). */
  clientFor(address: string): KServeClient {
    const b = this.backends.find((x) => x.address === address);
    if (!b) throw new Error(`unknown backend ${address}`);
    return b.client;
  }

  /** Runs one inference on the least-loaded healthy backend serving it. */
  async infer(call: InferCall): Promise<InferResult> {
    const request = buildInferRequest(call);
    const deadlineAt = Date.now() + (call.deadlineMs ?? this.deadlineMs);
    const tried = new Set<string>();
    try {
      return await runWithRetries({
        options: this.retry,
        deadlineAt,
        attempt: async (attempt) => {
          const backend = this.pick(call.model, call.version, tried, call.backends);
          const res = await backend.run((c) =>
            c.modelInfer(request, {
              deadlineMs: deadlineAt - Date.now(),
              metadata: call.metadata,
              signal: call.signal,
            }),
          );
          return {
            model: res.model_name || call.model,
            version: res.model_version || (call.version ?? ''),
            id: res.id,
            outputs: decodeInferResponse(res, backend.address),
            backend: backend.address,
            attempts: attempt,
          };
        },
        shouldRetry: (err) => call.signal?.aborted !== true && this.inferMayRetry(err, call),
      });
    } catch (err: unknown) {
      throw asFinalError(err, call.model, call.version);
    }
  }

  /** ModelConfig of a model from a backend serving it (idempotent: retried on UNAVAILABLE). */
  async modelConfig(model: string, opts: ModelConfigOptions = {}): Promise<ModelConfigMessage> {
    const deadlineAt = Date.now() + (opts.deadlineMs ?? this.deadlineMs);
    const tried = new Set<string>();
    const only = opts.backend ? [opts.backend] : undefined;
    try {
      return await runWithRetries({
        options: this.retry,
        deadlineAt,
        attempt: async () => {
          const backend = this.pick(model, opts.version, tried, only);
          const res = await backend.run((c) =>
            c.modelConfig(model, opts.version ?? '', { deadlineMs: deadlineAt - Date.now() }),
          );
          if (!res.config)
            throw new BackendError(
              backend.address,
              'ModelConfig',
              GrpcStatus.NOT_FOUND,
              `no config for '${model}'`,
            );
          return res.config;
        },
        shouldRetry: (err) => isTransient(err),
      });
    } catch (err: unknown) {
      throw asFinalError(err, model, opts.version);
    }
  }

  private candidates(model: string, version?: string, only?: readonly string[]): KServeBackend[] {
    return this.backends.filter(
      (b) => b.available() && b.serves(model, version) && (!only || only.includes(b.address)),
    );
  }

  // Least in flight; ties rotate. Backends already tried by this call are
  // avoided while any other candidate exists.
  private pick(
    model: string,
    version: string | undefined,
    tried: Set<string>,
    only?: readonly string[],
  ): KServeBackend {
    const all = this.candidates(model, version, only);
    if (all.length === 0) throw noCandidateError(this.backends, model, version);
    const fresh = all.filter((b) => !tried.has(b.address));
    const pool = fresh.length > 0 ? fresh : all;
    const least = Math.min(...pool.map((b) => b.inFlight));
    const tied = pool.filter((b) => b.inFlight === least);
    const chosen = tied[this.roundRobin++ % tied.length] as KServeBackend;
    tried.add(chosen.address);
    return chosen;
  }

  private inferMayRetry(err: unknown, call: InferCall): boolean {
    if (isModelNotHere(err)) {
      // That backend no longer has the version (unloaded since discovery): try the others.
      this.backends.find((b) => b.address === err.backend)?.forget(call.model, call.version);
      return this.candidates(call.model, call.version, call.backends).length > 0;
    }
    if (isUnavailable(err)) {
      if (nothingListens(err.grpcMessage)) {
        // Nothing listens there (a killed pod): out of rotation until discovery sees it answer
        // again, so this call and the next ones go to the other holders, or become cold starts
        // where it was the only one, instead of trying it until its circuit opens.
        const down = this.backends.find((b) => b.address === err.backend);
        if (down) {
          down.ready = false;
          down.lastError = err.grpcMessage;
        }
      }
      return !mayHaveBeenDelivered(err.grpcMessage);
    }
    return isTransient(err);
  }
}
