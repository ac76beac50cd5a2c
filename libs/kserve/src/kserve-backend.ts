import { status as GrpcStatus } from '@grpc/grpc-js';
import {
  BrokenCircuitError,
  CircuitBreakerPolicy,
  CircuitState,
  ConsecutiveBreaker,
  circuitBreaker,
  handleWhen,
} from 'cockatiel';
import { BackendError, BackendUnavailableError, isModelNotHere } from './kserve.errors';
import type { KServeClient } from './kserve-client';
import type { BackendStatus, BreakerOptions, CircuitStateName } from './kserve-pool.types';

/**
 * Faults that say "this backend is unwell" and count towards opening its
 * circuit. Client mistakes (INVALID_ARGUMENT, NOT_FOUND, RESOURCE_EXHAUSTED
 * from a full queue) never do: they would be the same on every backend. Nor does a version
 * that is simply not loaded there (unloaded by placement since the last discovery round).
 */
export function isBackendFault(err: unknown): boolean {
  return (
    err instanceof BackendError &&
    (err.grpcCode === GrpcStatus.UNAVAILABLE || err.grpcCode === GrpcStatus.DEADLINE_EXCEEDED) &&
    !isModelNotHere(err)
  );
}

const CIRCUIT_NAMES: Record<CircuitState, CircuitStateName> = {
  [CircuitState.Closed]: 'closed',
  [CircuitState.Open]: 'open',
  [CircuitState.HalfOpen]: 'half-open',
  [CircuitState.Isolated]: 'isolated',
};

const key = (model: string, version: string) => `${model}@${version}`;

/** Live state of one backend: readiness, served models, circuit, in-flight calls. */
export class KServeBackend {
  readonly address: string;
  readonly breaker: CircuitBreakerPolicy;
  inFlight = 0;
  ready = false;
  lastError?: string;
  lastCheckedAt?: number;
  private served = new Map<string, Set<string>>();

  constructor(
    readonly client: KServeClient,
    breaker: BreakerOptions,
  ) {
    this.address = client.address;
    this.breaker = circuitBreaker(handleWhen(isBackendFault), {
      halfOpenAfter: breaker.halfOpenAfterMs,
      breaker: new ConsecutiveBreaker(breaker.consecutiveFailures),
    });
  }

  get circuit(): CircuitStateName {
    return CIRCUIT_NAMES[this.breaker.state];
  }

  /**
   * Closes an open circuit at once (cockatiel closes a circuit when its last isolation ends).
   * For a backend that discovery saw come back after being unreachable: the faults that opened
   * the circuit were the old process's, and waiting out the half-open delay would only keep a
   * healthy restarted backend out of rotation.
   */
  closeCircuit(): void {
    if (this.breaker.state !== CircuitState.Closed) this.breaker.isolate().dispose();
  }

  /** Ready and circuit closed: may take new traffic. */
  available(): boolean {
    return this.ready && this.breaker.state === CircuitState.Closed;
  }

  /** Whether the last discovery saw (model, version) READY; any version when omitted. */
  serves(model: string, version?: string): boolean {
    const versions = this.served.get(model);
    if (!versions) return false;
    return version ? versions.has(version) : versions.size > 0;
  }

  /** Drops one (model, version) until the next discovery (e.g. after NOT_FOUND). */
  forget(model: string, version?: string): void {
    if (version) this.served.get(model)?.delete(version);
    else this.served.delete(model);
  }

  replaceServed(entries: readonly { name: string; version: string }[]): void {
    const next = new Map<string, Set<string>>();
    for (const e of entries) {
      const set = next.get(e.name) ?? new Set<string>();
      set.add(e.version);
      next.set(e.name, set);
    }
    this.served = next;
  }

  servedModels(): { model: string; version: string }[] {
    return [...this.served].flatMap(([model, versions]) =>
      [...versions].map((version) => ({ model, version })),
    );
  }

  /**
   * Runs one call through the circuit breaker, counting it as in flight.
   * An open circuit surfaces as BackendUnavailableError.
   */
  async run<T>(fn: (client: KServeClient) => Promise<T>): Promise<T> {
    this.inFlight++;
    try {
      return await this.breaker.execute(() => fn(this.client));
    } catch (err: unknown) {
      if (err instanceof BrokenCircuitError) {
        throw new BackendUnavailableError(`circuit open for backend ${this.address}`, {
          backends: { [this.address]: 'circuit open' },
        });
      }
      throw err;
    } finally {
      this.inFlight--;
    }
  }

  status(): BackendStatus {
    const s: BackendStatus = {
      address: this.address,
      ready: this.ready,
      circuit: this.circuit,
      inFlight: this.inFlight,
      models: [...this.served].flatMap(([m, vs]) => [...vs].map((v) => key(m, v))).sort(),
    };
    if (this.lastError !== undefined) s.lastError = this.lastError;
    if (this.lastCheckedAt !== undefined) s.lastCheckedAt = this.lastCheckedAt;
    return s;
  }
}
