import * as grpc from '@grpc/grpc-js';
import { loadInferencePackage } from '../inference-proto-loader';
import type { ModelInferRequest, ModelInferResponse } from '../kserve.types';

type Callback = (err: Partial<grpc.StatusObject> | null, res?: unknown) => void;
type Call = Pick<grpc.ServerUnaryCall<unknown, unknown>, 'request' | 'metadata' | 'once'>;

export interface FakeModel {
  name: string;
  version: string;
}

/**
 * A GRPCInferenceService built from proto/ for tests: serves a fixed model
 * list, echoes the first input as output `out`, and can be told to fail,
 * stall or hold calls.
 */
export class FakeInferenceServer {
  readonly server = new grpc.Server();
  address = '';
  models: FakeModel[];
  ready = true;
  /** Fail the next N ModelInfer calls with this status and details. */
  failures: { remaining: number; code: grpc.status; details: string } = {
    remaining: 0,
    code: 0,
    details: '',
  };
  /** Answer ModelInfer after this many ms. */
  delayMs = 0;
  /** When set, ModelInfer waits until release() is called. */
  holding = false;
  inferCalls = 0;
  /** ModelInfer calls the client cancelled while the server held them. */
  cancelledCalls = 0;
  inFlight = 0;
  readonly received: { request: ModelInferRequest; metadata: Record<string, unknown> }[] = [];
  /** ModelStreamInfer: off (UNIMPLEMENTED, as a server without streaming) or how it answers. */
  stream: 'answer' | 'end-unanswered' | 'unavailable' | 'off' = 'answer';
  /** Requests read from ModelStreamInfer calls, and streams the client cancelled. */
  /** Unary ModelInfer calls (`inferCalls` counts streamed requests that ran as well). */
  unaryInferCalls = 0;
  streamsOpened = 0;
  streamRequests = 0;
  cancelledStreams = 0;
  private held: (() => void)[] = [];

  constructor(models: FakeModel[]) {
    this.models = models;
    this.server.addService(loadInferencePackage().inferenceService, {
      ServerLive: (_c: Call, cb: Callback) => cb(null, { live: true }),
      ServerReady: (_c: Call, cb: Callback) => cb(null, { ready: this.ready }),
      ModelReady: (c: Call, cb: Callback) => {
        const r = c.request as FakeModel;
        cb(null, { ready: this.serves(r.name, r.version) });
      },
      RepositoryIndex: (_c: Call, cb: Callback) =>
        cb(null, { models: this.models.map((m) => ({ ...m, state: 'READY', reason: '' })) }),
      ModelConfig: (c: Call, cb: Callback) => this.modelConfig(c.request as FakeModel, cb),
      ModelInfer: (c: Call, cb: Callback) => {
        this.unaryInferCalls++;
        void this.modelInfer(c, cb);
      },
      ModelStreamInfer: (c: grpc.ServerDuplexStream<ModelInferRequest, unknown>) =>
        this.modelStreamInfer(c),
    });
  }

  /** Listens on a free local port (plaintext unless given TLS credentials). */
  async start(credentials = grpc.ServerCredentials.createInsecure()): Promise<string> {
    const port = await new Promise<number>((resolve, reject) =>
      this.server.bindAsync('127.0.0.1:0', credentials, (err, p) =>
        err ? reject(err) : resolve(p),
      ),
    );
    this.address = `127.0.0.1:${port}`;
    return this.address;
  }

  release(): void {
    this.holding = false;
    for (const r of this.held.splice(0)) r();
  }

  stop(): void {
    this.release();
    this.server.forceShutdown();
  }

  private serves(name: string, version: string): boolean {
    return this.models.some((m) => m.name === name && (!version || m.version === version));
  }

  private modelConfig(r: FakeModel, cb: Callback): void {
    if (!this.serves(r.name, r.version))
      return cb({ code: grpc.status.NOT_FOUND, details: `unknown model '${r.name}'` });
    cb(null, {
      config: {
        name: r.name,
        platform: 'onnxruntime_onnx',
        max_batch_size: 64,
        parameters: { model_sha256: { string_value: `sha-of-${r.name}` } },
      },
    });
  }

  /**
   * Streamed requests are answered as ModelInfer would answer them, except that a failure is
   * only text in error_message (as Triton streams it), and is not counted in `failures`.
   */
  private modelStreamInfer(c: grpc.ServerDuplexStream<ModelInferRequest, unknown>): void {
    this.streamsOpened++;
    c.once('cancelled', () => this.cancelledStreams++);
    if (this.stream === 'off') {
      c.emit('error', { code: grpc.status.UNIMPLEMENTED, details: 'ModelStreamInfer' });
      return;
    }
    let open = 0;
    let ended = false;
    c.on('data', (req: ModelInferRequest) => {
      this.streamRequests++;
      if (this.stream === 'end-unanswered') return void c.end();
      if (this.stream === 'unavailable') {
        c.emit('error', { code: grpc.status.UNAVAILABLE, details: 'backend going away' });
        return;
      }
      if (this.failures.remaining > 0) {
        return void c.write({
          error_message: this.failures.details,
          infer_response: { id: req.id },
        });
      }
      open++;
      void this.modelInfer(
        { request: req, metadata: c.metadata, once: () => c as never },
        (err, res) => {
          c.write(
            err
              ? { error_message: err.details, infer_response: { id: req.id } }
              : { error_message: '', infer_response: res },
          );
          if (--open === 0 && ended) c.end();
        },
      );
    });
    c.on('end', () => {
      ended = true;
      if (open === 0) c.end();
    });
  }

  private async modelInfer(c: Call, cb: Callback): Promise<void> {
    this.inferCalls++;
    c.once('cancelled', () => this.cancelledCalls++);
    const req = c.request as ModelInferRequest;
    this.received.push({ request: req, metadata: c.metadata.getMap() });
    if (this.failures.remaining > 0) {
      this.failures.remaining--;
      return cb({ code: this.failures.code, details: this.failures.details });
    }
    if (!this.serves(req.model_name, req.model_version ?? '')) {
      return cb({ code: grpc.status.NOT_FOUND, details: `unknown model '${req.model_name}'` });
    }
    this.inFlight++;
    if (this.holding) await new Promise<void>((r) => this.held.push(r));
    if (this.delayMs) await new Promise((r) => setTimeout(r, this.delayMs));
    this.inFlight--;
    const first = req.inputs[0];
    const res: ModelInferResponse = {
      model_name: req.model_name,
      model_version: req.model_version || '1',
      id: req.id ?? '',
      outputs: first ? [{ name: 'out', datatype: first.datatype, shape: first.shape }] : [],
      raw_output_contents: first ? [req.raw_input_contents?.[0] ?? Buffer.alloc(0)] : [],
    };
    cb(null, res);
  }
}
