import { status } from '@grpc/grpc-js';
import { isRetryable } from '@mesh/errors';
import { KServeBackend, isBackendFault } from './kserve-backend';
import type { KServeClient } from './kserve-client';
import { BackendError, BackendUnavailableError, isModelNotHere } from './kserve.errors';

const fakeClient = { address: '10.0.0.1:8001' } as KServeClient;
const unavailable = () =>
  new BackendError('10.0.0.1:8001', 'ModelInfer', status.UNAVAILABLE, 'down');
const invalid = () =>
  new BackendError('10.0.0.1:8001', 'ModelInfer', status.INVALID_ARGUMENT, 'bad');

function backend(halfOpenAfterMs = 60_000) {
  const b = new KServeBackend(fakeClient, { consecutiveFailures: 3, halfOpenAfterMs });
  b.ready = true;
  return b;
}

describe('KServeBackend circuit breaker', () => {
  it('counts only backend faults', () => {
    expect(isBackendFault(unavailable())).toBe(true);
    expect(isBackendFault(new BackendError('a', 'm', status.DEADLINE_EXCEEDED, 'x'))).toBe(true);
    expect(isBackendFault(invalid())).toBe(false);
    expect(isBackendFault(new Error('x'))).toBe(false);
  });

  it.each([
    // The embedded host, after an unload or a retirement.
    [status.UNAVAILABLE, "model 'm' version 1 is not ready: unloaded"],
    [status.NOT_FOUND, "unknown version 1 of model 'm'"],
    // Triton, for a model it does not hold (any more).
    [status.UNAVAILABLE, "Request for unknown model: 'm' version 1 is not at ready state"],
    [status.NOT_FOUND, "Request for unknown model: 'm' is not found"],
  ])('a version not loaded there (%p %p) is not a backend fault', async (code, message) => {
    const notHere = () => new BackendError('10.0.0.1:8001', 'ModelInfer', code, message);
    expect(isModelNotHere(notHere())).toBe(true);
    expect(isBackendFault(notHere())).toBe(false);
    const b = backend();
    for (let i = 0; i < 5; i++)
      await expect(b.run(() => Promise.reject(notHere()))).rejects.toThrow();
    expect(b.circuit).toBe('closed');
  });

  it('a dropped connection is still a fault, not a missing model', () => {
    expect(isModelNotHere(unavailable())).toBe(false);
    expect(isModelNotHere(new BackendError('a', 'ModelReady', status.NOT_FOUND, 'x'))).toBe(false);
  });

  it('opens after N consecutive faults and then refuses calls without running them', async () => {
    const b = backend();
    for (let i = 0; i < 3; i++)
      await expect(b.run(() => Promise.reject(unavailable()))).rejects.toThrow(BackendError);
    expect(b.circuit).toBe('open');
    expect(b.available()).toBe(false);
    let ran = false;
    await expect(
      b.run(async () => {
        ran = true;
      }),
    ).rejects.toThrow(BackendUnavailableError);
    expect(ran).toBe(false);
  });

  it('does not open on client errors, and a success resets the count', async () => {
    const b = backend();
    for (let i = 0; i < 5; i++)
      await expect(b.run(() => Promise.reject(invalid()))).rejects.toThrow();
    await expect(b.run(() => Promise.reject(unavailable()))).rejects.toThrow();
    await expect(b.run(() => Promise.reject(unavailable()))).rejects.toThrow();
    await b.run(async () => 'ok');
    await expect(b.run(() => Promise.reject(unavailable()))).rejects.toThrow();
    expect(b.circuit).toBe('closed');
  });

  it('lets a trial call through after halfOpenAfter and closes on its success', async () => {
    // The breaker reads the clock when a call arrives; a fake one moves past halfOpenAfter.
    jest.useFakeTimers();
    try {
      const b = backend(30);
      for (let i = 0; i < 3; i++)
        await expect(b.run(() => Promise.reject(unavailable()))).rejects.toThrow();
      expect(b.circuit).toBe('open');
      jest.advanceTimersByTime(29);
      await expect(b.run(async () => 'too early')).rejects.toThrow();
      jest.advanceTimersByTime(1);
      await expect(b.run(async () => 'trial')).resolves.toBe('trial');
      expect(b.circuit).toBe('closed');
      expect(b.available()).toBe(true);
    } finally {
      jest.useRealTimers();
    }
  });

  it('closes an open circuit on demand (a backend seen back after a restart)', async () => {
    const b = backend();
    for (let i = 0; i < 3; i++)
      await expect(b.run(() => Promise.reject(unavailable()))).rejects.toThrow();
    expect(b.circuit).toBe('open');
    b.closeCircuit();
    expect(b.circuit).toBe('closed');
    await expect(b.run(async () => 'ok')).resolves.toBe('ok');
    b.closeCircuit();
    expect(b.circuit).toBe('closed');
  });

  it('tracks in-flight calls', async () => {
    const b = backend();
    let release!: () => void;
    const pending = b.run(() => new Promise<void>((r) => (release = r)));
    expect(b.inFlight).toBe(1);
    release();
    await pending;
    expect(b.inFlight).toBe(0);
  });

  it('remembers served versions and forgets on demand', () => {
    const b = backend();
    b.replaceServed([
      { name: 'm', version: '1' },
      { name: 'm', version: '2' },
    ]);
    expect(b.serves('m', '2')).toBe(true);
    expect(b.serves('m')).toBe(true);
    b.forget('m', '2');
    expect(b.serves('m', '2')).toBe(false);
    expect(b.status().models).toEqual(['m@1']);
  });
});

describe('backend errors through the one error table', () => {
  it('retry on transient conditions only', () => {
    expect(isRetryable(new BackendUnavailableError('x'))).toBe(true);
    expect(isRetryable(unavailable())).toBe(true);
    expect(isRetryable(new BackendError('a', 'm', status.RESOURCE_EXHAUSTED, 'q'))).toBe(true);
    expect(isRetryable(invalid())).toBe(false);
    expect(isRetryable(new BackendError('a', 'm', status.NOT_FOUND, 'q'))).toBe(false);
  });
});
