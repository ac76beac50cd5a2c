import * as grpc from '@grpc/grpc-js';
import { BackendError } from './kserve.errors';
import type {
  ModelInferRequest,
  ModelInferResponse,
  ModelStreamInferResponse,
} from './kserve.types';

/** The stream could not give this request a clean answer; ask again with a unary ModelInfer. */
export class AskUnaryInstead extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'AskUnaryInstead';
  }
}

export interface LoneCallOptions {
  deadlineMs: number;
  signal?: AbortSignal;
}

type InferStreamCall = grpc.ClientDuplexStream<ModelInferRequest, ModelStreamInferResponse>;
type OpenStream = (md: grpc.Metadata) => InferStreamCall;

interface Pending {
  id: string;
  resolve(res: ModelInferResponse): void;
  reject(err: Error): void;
}

/**
 * One long-lived `ModelStreamInfer` call to a backend that carries one inference at a time.
 *
 * A unary ModelInfer opens an HTTP/2 stream, sends headers, and answers with a message and then
 * trailers in separate writes, so an idle caller is woken twice per call. On a stream that is
 * already open a request is one DATA frame each way. A lone request (nothing else in flight to the
 * backend, as at low load) gains that whole set-up on its latency; under load the router merges
 * requests into fewer calls, so the set-up matters less there.
 *
 * One request at a time keeps the unary call's meaning:
 * - cancelling or timing out the request cancels the whole stream, so the backend drops the
 *   request as it would a cancelled call (the next request opens a new stream);
 * - a stream answer carries an error only as text (`error_message`, as Triton sends it), with no
 *   gRPC status; such a request is asked again as a unary call ({@link AskUnaryInstead}), whose
 *   status the retry policy and circuit breaker act on;
 * - a request the backend never took (it ended the stream, e.g. while draining) is asked again
 *   the same way.
 * A backend without ModelStreamInfer (UNIMPLEMENTED) gets unary calls only from then on.
 * A failed stream (a non-OK status: backend gone, connection dropped) rejects the request with
 * that status, as the unary call would have.
 */
export class LoneInferStream {
  private call?: InferStreamCall;
  private pending?: Pending;
  /** The backend has no ModelStreamInfer (not every KServe v2 server streams): unary only. */
  private unsupported = false;
  private closed = false;

  constructor(
    private readonly address: string,
    private readonly open: OpenStream,
  ) {}

  /** Free for a request now (none of its own is waiting for an answer). */
  get idle(): boolean {
    return this.pending === undefined && !this.unsupported && !this.closed;
  }

  infer(req: ModelInferRequest, o: LoneCallOptions): Promise<ModelInferResponse> {
    if (!this.idle) return Promise.reject(new AskUnaryInstead('stream busy or closed'));
    if (o.signal?.aborted) return Promise.reject(cancelled(this.address));
    // A stream only ever holds one request (an abandoned one takes its stream with it), so the
    // request's own id tells its answer apart; it also names the request in the backend's log.
    const id = req.id ?? '';
    const call = (this.call ??= this.start());
    return new Promise<ModelInferResponse>((resolve, reject) => {
      const timer = setTimeout(
        () =>
          abandon(
            new BackendError(
              this.address,
              'ModelInfer',
              grpc.status.DEADLINE_EXCEEDED,
              'Deadline exceeded',
            ),
          ),
        Math.max(1, o.deadlineMs),
      );
      const onAbort = () => abandon(cancelled(this.address));
      const settle = () => {
        clearTimeout(timer);
        o.signal?.removeEventListener('abort', onAbort);
        this.pending = undefined;
      };
      // The backend is still working on it: cancelling the stream makes it drop the request.
      const abandon = (err: Error) => {
        settle();
        this.drop(call).cancel();
        reject(err);
      };
      o.signal?.addEventListener('abort', onAbort, { once: true });
      this.pending = {
        id,
        resolve: (res) => {
          settle();
          resolve(res);
        },
        reject: (err) => {
          settle();
          reject(err);
        },
      };
      call.write(req);
    });
  }

  /** Half-closes the stream; the backend answers what it holds, then ends it. */
  close(): void {
    this.closed = true;
    this.call?.end();
  }

  private start(): InferStreamCall {
    const call = this.open(new grpc.Metadata());
    call.on('data', (msg: ModelStreamInferResponse) => {
      const p = this.pending;
      if (!p || this.call !== call) return;
      const res = msg.infer_response;
      if (msg.error_message) return p.reject(new AskUnaryInstead(msg.error_message));
      if (!res || res.id !== p.id) {
        this.drop(call).cancel();
        return p.reject(new AskUnaryInstead(`answer for another request ('${res?.id ?? ''}')`));
      }
      p.resolve(res);
    });
    // 'status' ends every call, after its messages; 'error' repeats a non-OK one.
    call.on('error', () => undefined);
    call.on('status', (s: grpc.StatusObject) => {
      if (s.code === grpc.status.UNIMPLEMENTED) this.unsupported = true;
      // A stream dropped earlier (its request abandoned) has nothing of the current request.
      if (this.call !== call) return;
      this.call = undefined;
      const p = this.pending;
      if (!p) return;
      // Ended cleanly with a request still open: the backend never took it (it ends a stream
      // only once it has answered everything it read).
      if (s.code === grpc.status.OK || s.code === grpc.status.UNIMPLEMENTED)
        p.reject(new AskUnaryInstead(`stream ended before the answer (${s.details})`));
      else p.reject(new BackendError(this.address, 'ModelInfer', s.code, s.details));
    });
    return call;
  }

  /** Forgets `call` as the current stream (the next request opens a new one); returns it. */
  private drop(call: InferStreamCall): InferStreamCall {
    if (this.call === call) this.call = undefined;
    return call;
  }
}

function cancelled(address: string): BackendError {
  return new BackendError(address, 'ModelInfer', grpc.status.CANCELLED, 'Cancelled on client');
}
