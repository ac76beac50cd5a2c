import * as grpc from '@grpc/grpc-js';
import fc from 'fast-check';
import type { Verdict } from './fuzz.target';

export interface RawUnaryResult {
  error?: grpc.ServiceError;
  response?: Buffer;
  trailers?: grpc.Metadata;
}

const clients = new Map<string, grpc.Client>();

/** One plain grpc-js client per address, reused across calls (as a real caller would). */
function clientFor(address: string): grpc.Client {
  let c = clients.get(address);
  if (!c) {
    c = new grpc.Client(address, grpc.credentials.createInsecure(), {
      'grpc.max_send_message_length': 64 * 1024 * 1024,
      'grpc.max_receive_message_length': 64 * 1024 * 1024,
    });
    clients.set(address, c);
  }
  return c;
}

export function closeRawClients(): void {
  for (const c of clients.values()) c.close();
  clients.clear();
}

/**
 * A unary call whose request is sent as the given bytes (a serialized message or junk), so
 * the server's own decoding is under test; the response stays undecoded.
 */
export function rawUnary(
  address: string,
  path: string,
  payload: Buffer,
  metadata: grpc.Metadata,
  deadlineMs = 15_000,
): Promise<RawUnaryResult> {
  const identity = (b: Buffer) => b;
  return new Promise((resolve) => {
    clientFor(address).makeUnaryRequest(
      path,
      identity,
      identity,
      payload,
      metadata,
      { deadline: Date.now() + deadlineMs },
      // A ServiceError carries the trailing metadata of the failed call.
      (error, response) =>
        resolve(
          error ? { error, trailers: error.metadata } : { response: response ?? Buffer.alloc(0) },
        ),
    );
  });
}

export interface RawStreamResult {
  /** Every message the server sent, undecoded, in order. */
  answers: Buffer[];
  status: grpc.StatusObject;
}

/**
 * A bidirectional call whose requests are sent as the given bytes, then half-closed; resolves
 * with what came back once the server ends the call.
 */
export function rawBidi(
  address: string,
  path: string,
  payloads: readonly Buffer[],
  metadata: grpc.Metadata,
  deadlineMs = 15_000,
): Promise<RawStreamResult> {
  const identity = (b: Buffer) => b;
  return new Promise((resolve) => {
    const call = clientFor(address).makeBidiStreamRequest(path, identity, identity, metadata, {
      deadline: Date.now() + deadlineMs,
    });
    const answers: Buffer[] = [];
    call.on('data', (b: Buffer) => answers.push(b));
    call.on('error', () => undefined);
    call.on('status', (status: grpc.StatusObject) => resolve({ answers, status }));
    for (const p of payloads) call.write(p);
    call.end();
  });
}

/** Status codes that mean the server failed, not the request: never the answer to bad input. */
const SERVER_FAULTS = new Set<grpc.status>([
  grpc.status.INTERNAL,
  grpc.status.UNKNOWN,
  grpc.status.UNAVAILABLE,
  grpc.status.DEADLINE_EXCEEDED,
  grpc.status.DATA_LOSS,
]);

/**
 * OK, or a client-error status with a message; `extra` checks what the API documents beyond
 * that (e.g. the router's trailing `x-mesh-error-code`).
 */
export function grpcVerdict(
  res: RawUnaryResult,
  extra: (err: grpc.ServiceError, trailers?: grpc.Metadata) => string | undefined = () => undefined,
): Verdict {
  if (!res.error) return { outcome: 'grpc OK' };
  const err = res.error;
  const outcome = `grpc ${grpc.status[err.code] ?? err.code}`;
  if (SERVER_FAULTS.has(err.code)) return { outcome, problem: `${outcome}: ${err.details}` };
  if (!err.details) return { outcome, problem: `${outcome} without a message` };
  const problem = extra(err, res.trailers);
  return problem ? { outcome, problem } : { outcome };
}

/**
 * Protobuf-shaped junk: a run of fields with arbitrary numbers and wire types, lengths that
 * may lie, and varints that may not end. Much of it decodes (unknown fields are skipped);
 * the rest must be refused cleanly.
 */
export const wireJunk: fc.Arbitrary<Buffer> = fc
  .array(
    fc.record({
      field: fc.integer({ min: 0, max: 40 }),
      wire: fc.integer({ min: 0, max: 7 }),
      payload: fc.uint8Array({ maxLength: 24 }),
      lie: fc.integer({ min: -4, max: 4 }),
    }),
    { maxLength: 6 },
  )
  .map((fields) => {
    const out: number[] = [];
    for (const f of fields) {
      out.push(((f.field << 3) | f.wire) & 0xff);
      if (f.wire === 2) out.push(Math.max(0, f.payload.length + f.lie) & 0x7f);
      out.push(...f.payload);
    }
    return Buffer.from(out);
  });
