import * as grpc from '@grpc/grpc-js';

/** How a server answers a request whose bytes are not its method's protobuf message. */
export type UndecodableAnswer = (path: string, reason: string) => Partial<grpc.StatusObject>;

const UNDECODABLE = Symbol('undecodable request');

interface Undecodable {
  [UNDECODABLE]: string;
}

function isUndecodable(request: unknown): request is Undecodable {
  return typeof request === 'object' && request !== null && UNDECODABLE in request;
}

/**
 * Why a message of a stream named in `streamsAnsweringInBand` did not decode, or undefined for a
 * message that did.
 */
export function undecodableReason(request: unknown): string | undefined {
  return isUndecodable(request) ? request[UNDECODABLE] : undefined;
}

export interface UndecodableOptions {
  /**
   * Request-streaming methods (paths, e.g. `/mesh.v1.Predictor/PredictStream`) whose handler
   * answers an undecodable message inside the stream: the message reaches the handler as a
   * value `undecodableReason()` explains, and the stream stays open.
   */
  streamsAnsweringInBand?: readonly string[];
}

export const invalidArgumentAnswer: UndecodableAnswer = (path, reason) => ({
  code: grpc.status.INVALID_ARGUMENT,
  details: `the request is not a valid message for ${path}: ${reason}`,
});

type Handler = (
  call: { request?: unknown; emit(e: string, v: unknown): boolean },
  cb?: unknown,
) => void;

/**
 * grpc-js answers bytes that do not decode as the method's message with INTERNAL ("Error
 * deserializing request"), which says the server failed. It is the caller's mistake: for every
 * service added to `server` after this call, unary and server-streaming methods answer such a
 * request with `answer` (INVALID_ARGUMENT by default) instead. Client-streaming methods decode
 * message by message inside the stream and keep grpc-js's own handling, unless they are named
 * in `options.streamsAnsweringInBand`.
 */
export function refuseUndecodableRequests(
  server: grpc.Server,
  answer: UndecodableAnswer = invalidArgumentAnswer,
  options: UndecodableOptions = {},
): void {
  const add = server.addService.bind(server);
  server.addService = (service, implementation) => {
    const guarded: Record<string, grpc.MethodDefinition<unknown, unknown>> = { ...service };
    const impl: grpc.UntypedServiceImplementation = { ...implementation };
    for (const [name, method] of Object.entries(service)) {
      if (method.requestStream) {
        if (options.streamsAnsweringInBand?.includes(method.path)) {
          guarded[name] = { ...method, requestDeserialize: marking(method) };
        }
        continue;
      }
      const key =
        implementation[name] === undefined && typeof method.originalName === 'string'
          ? method.originalName
          : name;
      const handler = implementation[key] as unknown as Handler | undefined;
      if (!handler) continue;
      guarded[name] = {
        ...method,
        requestDeserialize: marking(method),
      };
      const refuse = (request: Undecodable) => answer(method.path, request[UNDECODABLE]);
      const guardedHandler: Handler = (call, cb) => {
        if (!isUndecodable(call.request)) return handler(call, cb);
        // Unary: the callback carries the status; server streaming: an 'error' event does.
        if (typeof cb === 'function') (cb as grpc.sendUnaryData<unknown>)(refuse(call.request));
        else call.emit('error', refuse(call.request));
      };
      impl[key] = guardedHandler;
    }
    add(guarded, impl);
  };
}

/** The method's decoder, with bytes that do not decode turned into an Undecodable value. */
function marking(method: grpc.MethodDefinition<unknown, unknown>): (bytes: Buffer) => unknown {
  return (bytes) => {
    try {
      return method.requestDeserialize(bytes);
    } catch (err: unknown) {
      const reason = err instanceof Error ? err.message : String(err);
      return { [UNDECODABLE]: reason } satisfies Undecodable;
    }
  };
}
