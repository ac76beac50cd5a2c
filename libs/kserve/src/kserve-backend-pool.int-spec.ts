import { status } from '@grpc/grpc-js';
import { createServer } from 'node:net';
import { pollUntil } from '../../../test/support/poll';
import { KServeBackendPool } from './kserve-backend-pool';
import { BackendError, BackendUnavailableError, VersionNotResidentError } from './kserve.errors';
import type { KServePoolOptions } from './kserve-pool.types';
import { TensorSizeError } from './tensor.errors';
import type { Tensor } from './tensor.types';
import { FakeInferenceServer } from './testing/fake-inference-server';

const ids = (values: bigint[]): Tensor => ({
  name: 'input_ids',
  datatype: 'INT64',
  shape: [1, values.length],
  data: BigInt64Array.from(values),
});

const servers: FakeInferenceServer[] = [];
const pools: KServeBackendPool[] = [];

async function fake(models = [{ name: 'm', version: '1' }]): Promise<FakeInferenceServer> {
  const s = new FakeInferenceServer(models);
  await s.start();
  servers.push(s);
  return s;
}

async function pool(
  endpoints: string[],
  extra: Partial<KServePoolOptions> = {},
): Promise<KServeBackendPool> {
  const p = new KServeBackendPool({
    endpoints,
    healthIntervalMs: 60_000,
    probeDeadlineMs: 500,
    retry: { maxAttempts: 3, baseDelayMs: 5, maxDelayMs: 20 },
    ...extra,
  });
  pools.push(p);
  await p.start();
  return p;
}

/** A port nothing listens on. */
async function deadPort(): Promise<string> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address() as { port: number };
  await new Promise((r) => srv.close(r));
  return `127.0.0.1:${port}`;
}

afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.close()));
  for (const s of servers.splice(0)) s.stop();
});

describe('KServeBackendPool against fake GRPCInferenceService servers', () => {
  it('discovers which backends serve which model versions', async () => {
    const a = await fake([{ name: 'm', version: '1' }]);
    const b = await fake([
      { name: 'm', version: '1' },
      { name: 'm', version: '2' },
    ]);
    const p = await pool([a.address, b.address]);
    expect(p.readyModels()).toEqual([
      { model: 'm', version: '1', backends: [a.address, b.address] },
      { model: 'm', version: '2', backends: [b.address] },
    ]);
    expect(p.backendsFor('m', '2').map((s) => s.address)).toEqual([b.address]);
    await expect(p.infer({ model: 'other', version: '1', inputs: [ids([1n])] })).rejects.toThrow(
      BackendUnavailableError,
    );
    await expect(p.infer({ model: 'other', version: '1', inputs: [ids([1n])] })).rejects.toThrow(
      /no healthy backend serves model 'other' version '1'/,
    );
  });

  it('round-trips tensors and passes request id, traceparent and parameters through', async () => {
    const a = await fake();
    const p = await pool([a.address]);
    const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    const res = await p.infer({
      model: 'm',
      version: '1',
      inputs: [ids([101n, 2n ** 40n, 102n])],
      parameters: { priority: 1, timeout: 5000 },
      metadata: { 'x-request-id': 'req-42', traceparent },
      id: 'req-42',
    });
    expect(res).toMatchObject({
      model: 'm',
      version: '1',
      id: 'req-42',
      backend: a.address,
      attempts: 1,
    });
    expect([...(res.outputs[0]!.data as BigInt64Array)]).toEqual([101n, 2n ** 40n, 102n]);
    // Alone on its backend the call rides the lone stream: the request id is the request's
    // own, the trace context one of its parameters (stream metadata is shared by every request).
    const seen = a.received[0]!;
    expect(seen.request.id).toBe('req-42');
    expect(seen.request.parameters).toMatchObject({
      priority: { int64_param: 1, parameter_choice: 'int64_param' },
      timeout: { int64_param: 5000 },
      traceparent: { string_param: traceparent },
    });
  });

  it('checks tensors before anything goes on the wire', async () => {
    const a = await fake();
    const p = await pool([a.address]);
    const bad: Tensor = {
      name: 'input_ids',
      datatype: 'INT64',
      shape: [1, 4],
      data: new BigInt64Array(3),
    };
    await expect(p.infer({ model: 'm', version: '1', inputs: [bad] })).rejects.toThrow(
      TensorSizeError,
    );
    expect(a.inferCalls).toBe(0);
  });

  it('spreads concurrent calls by least in-flight across two backends', async () => {
    const a = await fake();
    const b = await fake();
    const p = await pool([a.address, b.address]);
    a.holding = b.holding = true;
    const calls = Array.from({ length: 6 }, () =>
      p.infer({ model: 'm', version: '1', inputs: [ids([1n])] }),
    );
    await pollUntil(() => (a.inFlight + b.inFlight === 6 ? true : undefined), {
      what: '6 calls in flight',
    });
    expect([a.inFlight, b.inFlight]).toEqual([3, 3]);
    a.release();
    b.release();
    await Promise.all(calls);
    // With a busy, new work goes to b.
    a.holding = true;
    const slow = p.infer({ model: 'm', version: '1', inputs: [ids([1n])] });
    await pollUntil(() => (a.inFlight + b.inFlight === 1 ? true : undefined), {
      what: 'first call',
    });
    const busy = a.inFlight === 1 ? a : b;
    const idle = busy === a ? b : a;
    const before = idle.inferCalls;
    await p.infer({ model: 'm', version: '1', inputs: [ids([1n])] });
    expect(idle.inferCalls).toBe(before + 1);
    busy.release();
    await slow;
  });

  it('retries UNAVAILABLE from a server that fails its first calls', async () => {
    const a = await fake();
    const p = await pool([a.address]);
    a.failures = { remaining: 2, code: status.UNAVAILABLE, details: 'warming up' };
    const res = await p.infer({ model: 'm', version: '1', inputs: [ids([7n])] });
    expect(res.attempts).toBe(3);
    expect(a.inferCalls).toBe(3);
  });

  it('gives up after the configured attempts with BackendUnavailableError', async () => {
    const a = await fake();
    const p = await pool([a.address], { retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 2 } });
    a.failures = { remaining: 5, code: status.UNAVAILABLE, details: 'overloaded' };
    await expect(p.infer({ model: 'm', version: '1', inputs: [ids([7n])] })).rejects.toThrow(
      BackendUnavailableError,
    );
    expect(a.inferCalls).toBe(2);
  });

  it('does not retry ModelInfer when the request may already have been delivered', async () => {
    const a = await fake();
    const p = await pool([a.address]);
    a.failures = { remaining: 1, code: status.UNAVAILABLE, details: 'Connection dropped' };
    await expect(p.infer({ model: 'm', version: '1', inputs: [ids([7n])] })).rejects.toThrow(
      BackendUnavailableError,
    );
    expect(a.inferCalls).toBe(1);
  });

  it('does not retry client errors', async () => {
    const a = await fake();
    const p = await pool([a.address]);
    a.failures = { remaining: 3, code: status.INVALID_ARGUMENT, details: "input 'input_ids': bad" };
    const err = await p
      .infer({ model: 'm', version: '1', inputs: [ids([7n])] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BackendError);
    expect((err as BackendError).grpcCode).toBe(status.INVALID_ARGUMENT);
    expect(a.inferCalls).toBe(1);
  });

  it('retries NOT_FOUND on another backend that still serves the model', async () => {
    const a = await fake();
    const b = await fake();
    const p = await pool([a.address, b.address]);
    a.models = []; // unloaded on a since the last discovery
    for (let i = 0; i < 3; i++) {
      const res = await p.infer({ model: 'm', version: '1', inputs: [ids([1n])] });
      expect(res.backend).toBe(b.address);
    }
    expect(p.backendsFor('m', '1').map((s) => s.address)).toEqual([b.address]);
  });

  it('a version unloaded from its only holder is not resident, not unavailable', async () => {
    const a = await fake();
    const b = await fake([{ name: 'other', version: '1' }]);
    const p = await pool([a.address, b.address]);
    a.models = []; // the placer evicted it since the last discovery
    await expect(p.infer({ model: 'm', version: '1', inputs: [ids([1n])] })).rejects.toBeInstanceOf(
      VersionNotResidentError,
    );
    // The circuit of a stays closed: its other models keep being served.
    expect(p.status().find((s) => s.address === a.address)?.circuit).toBe('closed');
  });

  it('takes a backend nothing listens on out of rotation at the first refused call', async () => {
    const a = await fake();
    const b = await fake([{ name: 'other', version: '1' }]);
    const p = await pool([a.address, b.address]);
    a.stop(); // killed: m's only holder
    await expect(p.infer({ model: 'm', version: '1', inputs: [ids([1n])] })).rejects.toBeInstanceOf(
      VersionNotResidentError,
    );
    expect(p.status().find((s) => s.address === a.address)).toMatchObject({ ready: false });
  });

  it('enforces the deadline', async () => {
    const a = await fake();
    const p = await pool([a.address]);
    // The backend holds the call until the test ends: only the deadline can end it.
    a.holding = true;
    const err = await p
      .infer({ model: 'm', version: '1', inputs: [ids([1n])], deadlineMs: 150 })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BackendError);
    expect((err as BackendError).grpcCode).toBe(status.DEADLINE_EXCEEDED);
  });

  it.each([
    ['a unary call', false],
    ['the lone stream', true],
  ])('cancels %s on the backend when the caller aborts, and does not retry it', async (_, lone) => {
    const a = await fake();
    const p = await pool([a.address], { loneStream: lone });
    a.holding = true;
    const gone = new AbortController();
    const call = p
      .infer({ model: 'm', version: '1', inputs: [ids([1n])], signal: gone.signal })
      .catch((e: unknown) => e);
    await pollUntil(() => (a.inFlight === 1 ? true : undefined), { what: 'the call to arrive' });
    gone.abort();
    const err = await call;
    expect(err).toBeInstanceOf(BackendError);
    expect((err as BackendError).grpcCode).toBe(status.CANCELLED);
    const cancelled = () => (lone ? a.cancelledStreams : a.cancelledCalls);
    await pollUntil(() => (cancelled() === 1 ? true : undefined), {
      what: 'the server to see the cancel',
    });
    expect(a.inferCalls).toBe(1);
    expect(a.streamRequests).toBe(lone ? 1 : 0);
  });

  it('routes around an unreachable backend', async () => {
    const dead = await deadPort();
    const a = await fake();
    const p = await pool([dead, a.address]);
    expect(p.status().find((s) => s.address === dead)).toMatchObject({ ready: false });
    for (let i = 0; i < 4; i++) {
      expect((await p.infer({ model: 'm', version: '1', inputs: [ids([1n])] })).backend).toBe(
        a.address,
      );
    }
  });

  it('opens the circuit after consecutive faults and recovers through a half-open trial', async () => {
    const a = await fake();
    const p = await pool([a.address], {
      retry: { maxAttempts: 1 },
      breaker: { consecutiveFailures: 3, halfOpenAfterMs: 200 },
    });
    a.failures = { remaining: 3, code: status.UNAVAILABLE, details: 'sick' };
    for (let i = 0; i < 3; i++) {
      await expect(p.infer({ model: 'm', version: '1', inputs: [ids([1n])] })).rejects.toThrow();
    }
    expect(p.status()[0]!.circuit).toBe('open');
    const calls = a.inferCalls;
    await expect(p.infer({ model: 'm', version: '1', inputs: [ids([1n])] })).rejects.toThrow(
      BackendUnavailableError,
    );
    expect(a.inferCalls).toBe(calls);
    await pollUntil(
      async () => {
        await p.refresh();
        return p.status()[0]!.circuit === 'closed' ? true : undefined;
      },
      { timeoutMs: 3_000, what: 'circuit to close' },
    );
    await expect(p.infer({ model: 'm', version: '1', inputs: [ids([1n])] })).resolves.toMatchObject(
      { backend: a.address },
    );
  });

  it('reads ModelConfig (model_sha256) from a backend serving the model', async () => {
    const a = await fake();
    const p = await pool([a.address]);
    const cfg = await p.modelConfig('m', { version: '1' });
    expect(cfg.parameters.model_sha256?.string_value).toBe('sha-of-m');
    await expect(p.modelConfig('m', { backend: 'nowhere:1' })).rejects.toThrow(
      BackendUnavailableError,
    );
  });

  it('rediscovers on the health timer', async () => {
    const a = await fake([]);
    const p = await pool([a.address], { healthIntervalMs: 50 });
    expect(p.readyModels()).toEqual([]);
    a.models.push({ name: 'late', version: '3' });
    await pollUntil(() => (p.backendsFor('late', '3').length === 1 ? true : undefined), {
      timeoutMs: 3_000,
      what: 'late model discovered',
    });
  });
});
