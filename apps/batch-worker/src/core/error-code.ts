/**
 * The code an item error (and a failed span) carries for a failure: the mesh error's own code,
 * a backend's gRPC status folded in (`BACKEND_ERROR_<n>`), else INTERNAL.
 */
export function errorCodeOf(err: unknown): string {
  const e = err as { code?: unknown; grpcCode?: unknown } | null;
  if (e?.code === 'BACKEND_ERROR' && typeof e.grpcCode === 'number')
    return `BACKEND_ERROR_${e.grpcCode}`;
  return typeof e?.code === 'string' ? e.code : 'INTERNAL';
}
