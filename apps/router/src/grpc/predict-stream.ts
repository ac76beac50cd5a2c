import type { ServerDuplexStream } from '@grpc/grpc-js';
import { callerGone, undecodableReason } from '@mesh/kserve';
import { RequestValidationError, ShuttingDownError } from '../errors/router.errors';

export const PREDICT_STREAM_PATH = '/mesh.v1.Predictor/PredictStream';

/** One request of `mesh.v1.Predictor/PredictStream` (proto names, camelCased). */
export interface PredictStreamRequestMsg {
  id?: string;
  request?: object | null;
}

/** A request that failed on the stream, as `PredictStreamError`. */
export interface PredictStreamErrorMsg {
  code: number;
  meshCode: string;
  message: string;
  retryAfterMs: number;
  detailsJson: string;
}

export type PredictStreamResponseMsg =
  { id: string; response: object } | { id: string; error: PredictStreamErrorMsg };

/** Answers one request of a stream; `signal` aborts when the caller cancels the stream. */
export type StreamedPredict = (
  req: PredictStreamRequestMsg,
  signal: AbortSignal,
) => Promise<object>;

/**
 * A message answered with `err` without running (undecodable, or arriving while draining), so
 * it is still logged and counted as a request.
 */
export type StreamRefusal = (req: PredictStreamRequestMsg, err: Error) => void;

/**
 * The stream mechanics of `PredictStream`: every message is answered on the stream with its
 * id, in the order the answers are ready, and a failed request is an error message, not the
 * end of the stream (as Triton's ModelStreamInfer). A half-close by the caller is answered
 * in full before the stream ends; a cancel aborts what it still waits for. When the caller
 * stops reading, the router stops reading too, so answers never pile up unread. On shutdown
 * (`drain`) each stream ends once it has answered what it holds, and a request arriving
 * meanwhile is answered SHUTTING_DOWN, so nothing sent is left without an answer.
 */
export class PredictStreams {
  /** How to end each open stream (see drain). */
  private readonly enders = new Set<() => void>();
  private draining = false;

  constructor(private readonly toError: (err: unknown) => PredictStreamErrorMsg) {}

  /** Serves one stream; resolves when it is over (ended, cancelled or broken). */
  serve(
    call: ServerDuplexStream<PredictStreamRequestMsg, PredictStreamResponseMsg>,
    predict: StreamedPredict,
    refused: StreamRefusal = () => undefined,
  ): Promise<void> {
    return new Promise<void>((resolve) => {
      const gone = callerGone(call);
      let open = 0;
      let ended = false;
      let over = false;
      let paused = false;
      const finish = () => {
        if (over) return;
        over = true;
        this.enders.delete(endWhenAnswered);
        gone.release();
        resolve();
      };
      const maybeEnd = () => {
        if (!ended || open > 0 || over) return;
        call.end();
        finish();
      };
      const endWhenAnswered = () => {
        ended = true;
        maybeEnd();
      };
      const write = (msg: PredictStreamResponseMsg) => {
        if (over) return;
        // The caller is not reading: take no more requests until it catches up.
        if (!call.write(msg) && !paused) {
          paused = true;
          call.pause();
          call.once('drain', () => {
            paused = false;
            call.resume();
          });
        }
      };
      this.enders.add(endWhenAnswered);
      call.on('data', (req: PredictStreamRequestMsg) => {
        if (over) return;
        // Bytes that are no PredictStreamRequest: the caller's mistake, answered (without an
        // id, there is none to read) like an invalid unary call; the stream goes on.
        const undecodable = undecodableReason(req);
        if (undecodable !== undefined) {
          const issue = { path: '', message: `not a valid PredictStreamRequest: ${undecodable}` };
          const err = new RequestValidationError([issue]);
          refused({}, err);
          write({ id: '', error: this.toError(err) });
          return;
        }
        const id = req.id ?? '';
        if (this.draining) {
          const err = new ShuttingDownError('send again on a new stream');
          refused(req, err);
          write({ id, error: this.toError(err) });
          return;
        }
        open++;
        void Promise.resolve()
          .then(() => predict(req, gone.signal))
          .then(
            (response): PredictStreamResponseMsg => ({ id, response }),
            (err: unknown): PredictStreamResponseMsg => ({ id, error: this.toError(err) }),
          )
          .then((msg) => {
            open--;
            write(msg);
            maybeEnd();
          });
      });
      call.on('end', endWhenAnswered);
      call.on('cancelled', finish);
      call.on('error', finish);
    });
  }

  /** Open streams. */
  get size(): number {
    return this.enders.size;
  }

  /** Shutdown: every stream ends once it has answered the requests it holds. */
  drain(): void {
    this.draining = true;
    for (const end of [...this.enders]) end();
  }
}
