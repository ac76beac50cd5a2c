import * as grpc from '@grpc/grpc-js';
import { pollUntil } from '../../../test/support/poll';
import { buildInferRequest } from './infer-request.codec';
import { createChannelCredentials, KServeClient } from './kserve-client';
import { BackendError } from './kserve.errors';
import type { ModelInferRequest } from './kserve.types';
import { FakeInferenceServer } from './testing/fake-inference-server';

const servers: FakeInferenceServer[] = [];
const clients: KServeClient[] = [];

async function setUp(
  loneStream = true,
): Promise<{ server: FakeInferenceServer; client: KServeClient }> {
  const server = new FakeInferenceServer([{ name: 'm', version: '1' }]);
  await server.start();
  servers.push(server);
  const client = new KServeClient({
    address: server.address,
    credentials: createChannelCredentials(),
    maxMessageBytes: 1 << 20,
    loneStream,
  });
  clients.push(client);
  return { server, client };
}

function request(id: string, values: bigint[]): ModelInferRequest {
  const data = BigInt64Array.from(values);
  const input = { name: 'input_ids', datatype: 'INT64' as const, shape: [1, values.length], data };
  return buildInferRequest({ model: 'm', version: '1', id, inputs: [input] });
}

const echoed = (raw: Buffer | undefined) => [...new BigInt64Array(new Uint8Array(raw!).buffer)];
const unaryCalls = (s: FakeInferenceServer) => s.unaryInferCalls;
const opts = { deadlineMs: 10_000 };

afterEach(() => {
  for (const c of clients.splice(0)) c.close();
  for (const s of servers.splice(0)) s.stop();
});

describe('KServeClient.modelInfer over the lone ModelStreamInfer call', () => {
  it('sends a lone inference on one long-lived stream, and one sent meanwhile as a unary call', async () => {
    const { server, client } = await setUp();
    server.holding = true;
    const first = client.modelInfer(request('a', [1n, 2n]), opts);
    await pollUntil(() => (server.inFlight === 1 ? true : undefined), {
      what: 'the first request',
    });
    const second = client.modelInfer(request('b', [3n]), opts);
    await pollUntil(() => (server.inFlight === 2 ? true : undefined), {
      what: 'the second request',
    });
    expect(server.streamRequests).toBe(1);
    expect(unaryCalls(server)).toBe(1);
    server.release();
    const [a, b] = await Promise.all([first, second]);
    expect(a.id).toBe('a');
    expect(echoed(a.raw_output_contents[0])).toEqual([1n, 2n]);
    expect(b.id).toBe('b');
    expect(echoed(b.raw_output_contents[0])).toEqual([3n]);
    // Later lone requests reuse the same stream.
    for (const id of ['c', 'd', 'e']) {
      expect((await client.modelInfer(request(id, [7n]), opts)).id).toBe(id);
    }
    expect(server.streamRequests).toBe(4);
    expect(server.streamsOpened).toBe(1);
    expect(unaryCalls(server)).toBe(1);
  });

  it('asks again with a unary call when the stream answers with an error, so the status is kept', async () => {
    const { server, client } = await setUp();
    server.failures = { remaining: 1, code: grpc.status.INVALID_ARGUMENT, details: 'bad shape' };
    const err = await client.modelInfer(request('x', [1n]), opts).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BackendError);
    expect((err as BackendError).grpcCode).toBe(grpc.status.INVALID_ARGUMENT);
    expect((err as BackendError).grpcMessage).toBe('bad shape');
    expect(server.streamRequests).toBe(1);
    expect(unaryCalls(server)).toBe(1);
    // The stream itself is still fine.
    expect((await client.modelInfer(request('y', [2n]), opts)).id).toBe('y');
    expect(server.streamsOpened).toBe(1);
  });

  it('cancels the stream on the backend when the caller aborts, then opens a new one', async () => {
    const { server, client } = await setUp();
    server.holding = true;
    const gone = new AbortController();
    const call = client
      .modelInfer(request('a', [1n]), { ...opts, signal: gone.signal })
      .catch((e: unknown) => e);
    await pollUntil(() => (server.inFlight === 1 ? true : undefined), { what: 'the request' });
    gone.abort();
    const err = await call;
    expect(err).toBeInstanceOf(BackendError);
    expect((err as BackendError).grpcCode).toBe(grpc.status.CANCELLED);
    await pollUntil(() => (server.cancelledStreams === 1 ? true : undefined), {
      what: 'the backend to see the stream cancelled',
    });
    server.release();
    expect((await client.modelInfer(request('b', [2n]), opts)).id).toBe('b');
    expect(server.streamsOpened).toBe(2);
    expect(unaryCalls(server)).toBe(0);
  });

  it('ends a request at its deadline and cancels its stream on the backend', async () => {
    const { server, client } = await setUp();
    server.holding = true;
    // Long enough for the stream to reach the backend on a loaded machine: a deadline that
    // passes before the backend saw the request leaves it nothing to see cancelled.
    const call = client
      .modelInfer(request('a', [1n]), { deadlineMs: 2000 })
      .catch((e: unknown) => e);
    await pollUntil(() => (server.inFlight === 1 ? true : undefined), { what: 'the request' });
    const err = await call;
    expect(err).toBeInstanceOf(BackendError);
    expect((err as BackendError).grpcCode).toBe(grpc.status.DEADLINE_EXCEEDED);
    await pollUntil(() => (server.cancelledStreams === 1 ? true : undefined), {
      what: 'the backend to see the stream cancelled',
    });
  });

  it('asks again with a unary call when the backend ends the stream without taking the request', async () => {
    const { server, client } = await setUp();
    server.stream = 'end-unanswered';
    const res = await client.modelInfer(request('a', [5n]), opts);
    expect(echoed(res.raw_output_contents[0])).toEqual([5n]);
    expect(server.streamRequests).toBe(1);
    expect(unaryCalls(server)).toBe(1);
  });

  it('rejects with the status of a stream that failed, as the unary call would', async () => {
    const { server, client } = await setUp();
    server.stream = 'unavailable';
    const err = await client.modelInfer(request('a', [1n]), opts).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BackendError);
    expect((err as BackendError).grpcCode).toBe(grpc.status.UNAVAILABLE);
    expect((err as BackendError).grpcMessage).toBe('backend going away');
    server.stream = 'answer';
    expect((await client.modelInfer(request('b', [1n]), opts)).id).toBe('b');
    expect(server.streamsOpened).toBe(2);
  });

  it('falls back to unary calls for good on a backend without ModelStreamInfer', async () => {
    const { server, client } = await setUp();
    server.stream = 'off';
    for (const id of ['a', 'b', 'c']) {
      expect((await client.modelInfer(request(id, [1n]), opts)).id).toBe(id);
    }
    expect(server.streamsOpened).toBe(1);
    expect(unaryCalls(server)).toBe(3);
  });

  it('keeps a traced request on the stream, its trace context in its own parameters', async () => {
    const { server, client } = await setUp();
    const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    await client.modelInfer(request('a', [1n]), { ...opts, metadata: { traceparent } });
    expect([server.streamRequests, unaryCalls(server)]).toEqual([1, 0]);
    expect(server.received[0]!.request.parameters?.traceparent?.string_param).toBe(traceparent);
  });

  it('sends a traced request that finds the stream busy as its own call, context in metadata', async () => {
    const { server, client } = await setUp();
    server.holding = true;
    const first = client.modelInfer(request('a', [1n]), opts);
    await pollUntil(() => (server.inFlight === 1 ? true : undefined), {
      what: 'the first request',
    });
    const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    const second = client.modelInfer(request('b', [2n]), { ...opts, metadata: { traceparent } });
    await pollUntil(() => (server.inFlight === 2 ? true : undefined), {
      what: 'the second request',
    });
    server.release();
    await Promise.all([first, second]);
    const traced = server.received.find((r) => r.request.id === 'b')!;
    expect(traced.metadata).toMatchObject({ traceparent });
    expect(traced.request.parameters?.traceparent).toBeUndefined();
    expect(unaryCalls(server)).toBe(1);
  });

  it('sends every inference as a unary call when the stream is turned off', async () => {
    const { server, client } = await setUp(false);
    for (const id of ['a', 'b']) await client.modelInfer(request(id, [1n]), opts);
    expect(server.streamsOpened).toBe(0);
    expect(unaryCalls(server)).toBe(2);
  });
});
