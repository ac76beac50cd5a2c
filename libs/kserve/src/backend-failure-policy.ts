import { status as GrpcStatus } from '@grpc/grpc-js';
import type { KServeBackend } from './kserve-backend';
import {
  BackendError,
  BackendUnavailableError,
  isModelNotHere,
  VersionNotResidentError,
} from './kserve.errors';

/**
 * How the backend pool reads a failed call: which failures another attempt
 * may cure, and which error the caller sees once attempts run out.
 */

/** No backend is ready, closed and serving the model: retrying now will not help. */
export class NoCandidateError extends BackendUnavailableError {}

/** UNAVAILABLE details that mean nothing listens there: the backend is down, not busy. */
const CONNECT_FAILED =
  /no connection established|econnrefused|failed to connect|connection refused/i;

/**
 * UNAVAILABLE details that mean the transport died while the request may
 * already have been delivered (so a ModelInfer retry could run it twice).
 */
const MAYBE_DELIVERED =
  /connection dropped|rst_stream|econnreset|epipe|goaway|premature close|stream closed/i;

export function nothingListens(grpcMessage: string): boolean {
  return CONNECT_FAILED.test(grpcMessage);
}

export function mayHaveBeenDelivered(grpcMessage: string): boolean {
  return MAYBE_DELIVERED.test(grpcMessage);
}

export function isUnavailable(err: unknown): err is BackendError {
  return err instanceof BackendError && err.grpcCode === GrpcStatus.UNAVAILABLE;
}

export function isTransient(err: unknown): boolean {
  if (err instanceof NoCandidateError || err instanceof VersionNotResidentError) return false;
  if (err instanceof BackendUnavailableError) return true;
  return isUnavailable(err);
}

/** Why no backend could take (model, version), per backend, as the caller's error. */
export function noCandidateError(
  backends: readonly KServeBackend[],
  model: string,
  version?: string,
): BackendUnavailableError {
  const reasons = Object.fromEntries(
    backends.map((b) => [
      b.address,
      !b.ready
        ? `not ready${b.lastError ? `: ${b.lastError}` : ''}`
        : b.circuit !== 'closed'
          ? `circuit ${b.circuit}`
          : b.serves(model, version)
            ? 'busy'
            : 'does not serve it',
    ]),
  );
  const what = version ? `model '${model}' version '${version}'` : `model '${model}'`;
  const up = backends.filter((b) => b.available());
  if (up.length > 0 && !up.some((b) => b.serves(model, version))) {
    // Backends are up but none of them holds the version (any more; its holder may just have
    // died): it is cold, not unavailable.
    return new VersionNotResidentError(`no healthy backend serves ${what}: none holds it now`, {
      model,
      version,
      backends: reasons,
    });
  }
  return new NoCandidateError(`no healthy backend serves ${what}`, {
    model,
    version,
    backends: reasons,
  });
}

/** The error a pool call ends with once its attempts are spent. */
export function asFinalError(err: unknown, model: string, version?: string): unknown {
  if (isModelNotHere(err)) {
    return new VersionNotResidentError(
      `model '${model}'${version ? ` version '${version}'` : ''} is no longer loaded on any backend`,
      { model, version, backends: { [err.backend]: err.grpcMessage } },
    );
  }
  if (isUnavailable(err)) {
    return new BackendUnavailableError(`model '${model}': ${err.message}`, {
      model,
      version,
      backends: { [err.backend]: err.grpcMessage },
    });
  }
  return err;
}
