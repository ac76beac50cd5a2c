import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { status as GrpcStatus } from '@grpc/grpc-js';
import { ERROR_TABLE, RETRYABLE_GRPC_STATUSES, type ErrorMapping } from './error-table';

const G = GrpcStatus;

/** Every code both edges answered before the tables merged, with the status callers rely on. */
const expected: [string, number, GrpcStatus][] = [
  ['INVALID_ARGUMENT', 400, G.INVALID_ARGUMENT],
  ['INVALID_INPUT', 400, G.INVALID_ARGUMENT],
  ['INVALID_JSON', 400, G.INVALID_ARGUMENT],
  ['INVALID_ROUTING_CONFIG', 400, G.INVALID_ARGUMENT],
  ['INVALID_PLAN', 400, G.INVALID_ARGUMENT],
  ['UNAUTHENTICATED', 401, G.UNAUTHENTICATED],
  ['ADMIN_FORBIDDEN', 403, G.PERMISSION_DENIED],
  ['TASK_NOT_FOUND', 404, G.NOT_FOUND],
  ['NOT_FOUND', 404, G.NOT_FOUND],
  ['ROUTE_NOT_FOUND', 404, G.NOT_FOUND],
  ['JOB_NOT_FOUND', 404, G.NOT_FOUND],
  ['ROLLOUT_NOT_FOUND', 404, G.NOT_FOUND],
  ['METHOD_NOT_ALLOWED', 405, G.UNIMPLEMENTED],
  ['REQUEST_TIMEOUT', 408, G.DEADLINE_EXCEEDED],
  ['EPOCH_CONFLICT', 409, G.ABORTED],
  ['REVISION_CONFLICT', 409, G.ABORTED],
  ['FENCED', 409, G.ABORTED],
  ['ROLLOUT_CONFLICT', 409, G.FAILED_PRECONDITION],
  ['ROUTE_CHANGED', 409, G.FAILED_PRECONDITION],
  ['INVALID_COMMAND', 409, G.FAILED_PRECONDITION],
  ['PAYLOAD_TOO_LARGE', 413, G.INVALID_ARGUMENT],
  ['TEXT_TOO_LONG', 413, G.INVALID_ARGUMENT],
  ['BATCH_TOO_LARGE', 413, G.INVALID_ARGUMENT],
  ['UNSUPPORTED_MEDIA_TYPE', 415, G.INVALID_ARGUMENT],
  ['PLAN_REJECTED', 422, G.FAILED_PRECONDITION],
  ['UNKNOWN_MODEL', 422, G.FAILED_PRECONDITION],
  ['MODEL_CONFIG_INVALID', 422, G.FAILED_PRECONDITION],
  ['UNKNOWN_VERSION', 422, G.FAILED_PRECONDITION],
  ['VERSION_NOT_SELECTED', 422, G.FAILED_PRECONDITION],
  ['MANIFEST_INVALID', 422, G.FAILED_PRECONDITION],
  ['MODEL_TOO_LARGE', 422, G.FAILED_PRECONDITION],
  ['RATE_LIMITED', 429, G.RESOURCE_EXHAUSTED],
  ['TOO_MANY_IN_FLIGHT', 429, G.RESOURCE_EXHAUSTED],
  ['JOB_QUOTA_EXCEEDED', 429, G.RESOURCE_EXHAUSTED],
  ['HEADERS_TOO_LARGE', 431, G.INVALID_ARGUMENT],
  ['CLIENT_CLOSED', 499, G.CANCELLED],
  ['INTERNAL', 500, G.INTERNAL],
  ['BAD_BACKEND_RESPONSE', 502, G.INTERNAL],
  ['OUTPUT_SHAPE_MISMATCH', 502, G.INTERNAL],
  ['BACKEND_UNAVAILABLE', 503, G.UNAVAILABLE],
  ['VERSION_UNROUTABLE', 503, G.UNAVAILABLE],
  ['MODEL_LOADING', 503, G.UNAVAILABLE],
  // The coordinator answered 404 until the tables merged: not seeded yet is "not ready".
  ['ROUTING_TABLE_MISSING', 503, G.UNAVAILABLE],
  ['SHUTTING_DOWN', 503, G.UNAVAILABLE],
  ['STORE_UNAVAILABLE', 503, G.UNAVAILABLE],
  ['BACKEND_TIMEOUT', 504, G.DEADLINE_EXCEEDED],
];

/** Which HTTP statuses each gRPC status may travel with (after Google's API mapping). */
const HTTP_FOR_GRPC: ReadonlyMap<GrpcStatus, readonly number[]> = new Map([
  [G.INVALID_ARGUMENT, [400, 413, 415, 431]],
  [G.UNAUTHENTICATED, [401]],
  [G.PERMISSION_DENIED, [403]],
  [G.NOT_FOUND, [404]],
  [G.UNIMPLEMENTED, [405]],
  [G.DEADLINE_EXCEEDED, [408, 504]],
  [G.ABORTED, [409]],
  [G.FAILED_PRECONDITION, [409, 422]],
  [G.RESOURCE_EXHAUSTED, [429]],
  [G.CANCELLED, [499]],
  [G.INTERNAL, [500, 502]],
  [G.UNAVAILABLE, [503]],
]);

/** Codes raised only where no API edge answers them: boot failures, and backend statuses. */
const NEVER_ANSWERED = new Set([
  // ConfigError stops a process before it listens.
  'CONFIG_INVALID',
  // RedisSettingsError: a Redis primary's settings refuse the boot (an evicting maxmemory-policy).
  'REDIS_SETTINGS_REFUSED',
  // @mesh/kserve's BackendError: answered by the backend's gRPC status (BACKEND_GRPC_STATUS).
  'BACKEND_ERROR',
]);

const rows = Object.entries(ERROR_TABLE).map(([code, m]: [string, ErrorMapping]) => ({
  code,
  ...m,
}));

describe('ERROR_TABLE', () => {
  it.each(expected)('%s → HTTP %i, gRPC %i', (code, http, grpc) => {
    expect(ERROR_TABLE).toHaveProperty(code);
    const row = ERROR_TABLE[code as keyof typeof ERROR_TABLE];
    expect({ http: row.http, grpc: row.grpc }).toEqual({ http, grpc });
  });

  it('has no row the expectations above do not pin down', () => {
    expect(Object.keys(ERROR_TABLE).sort()).toEqual(expected.map(([code]) => code).sort());
  });

  it.each(rows)('$code: HTTP $http agrees with gRPC $grpc', ({ http, grpc }) => {
    expect(HTTP_FOR_GRPC.get(grpc)).toContain(http);
    expect(http >= 400 && http < 600).toBe(true);
  });

  it.each(rows)('$code: retryable exactly when its gRPC status is', ({ grpc, retryable }) => {
    expect(retryable).toBe(RETRYABLE_GRPC_STATUSES.has(grpc));
  });

  it('answers 500 only for errors no client can cause', () => {
    expect(rows.filter((r) => r.http === 500).map((r) => r.code)).toEqual(['INTERNAL']);
    for (const r of rows.filter((r) => r.http < 500)) expect(r.grpc).not.toBe(G.INTERNAL);
  });

  it('never tells a client to resend a request that was wrong', () => {
    for (const r of rows.filter((r) => r.http < 500 && r.http !== 408 && r.http !== 429)) {
      expect(r.retryable).toBe(false);
    }
  });
});

describe('codes raised in the sources', () => {
  const root = join(__dirname, '..', '..', '..');
  const raised = [...scan(root, ['apps', 'libs', 'scripts'])];

  it('finds the domain errors (the scan itself works)', () => {
    expect(raised.map((r) => r.code)).toEqual(
      expect.arrayContaining(['ROLLOUT_CONFLICT', 'TASK_NOT_FOUND', 'JOB_NOT_FOUND']),
    );
  });

  it('are all rows of the table', () => {
    const unknown = raised.filter((r) => !(r.code in ERROR_TABLE) && !NEVER_ANSWERED.has(r.code));
    expect(unknown.map((r) => `${r.file}: ${r.code}`)).toEqual([]);
  });
});

/** Every `readonly code = '...'` outside tests, with its file. */
function* scan(root: string, dirs: readonly string[]): Generator<{ file: string; code: string }> {
  for (const dir of dirs) yield* scanDir(root, join(root, dir));
}

function* scanDir(root: string, dir: string): Generator<{ file: string; code: string }> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules' && entry.name !== 'testing') yield* scanDir(root, path);
    } else if (entry.name.endsWith('.ts') && !/\.(spec|int-spec|e2e-spec)\.ts$/.test(entry.name)) {
      const text = readFileSync(path, 'utf8');
      for (const m of text.matchAll(/readonly code(?:: [\w']+)? = '([A-Z_]+)'/g)) {
        if (m[1]) yield { file: relative(root, path), code: m[1] };
      }
    }
  }
}
