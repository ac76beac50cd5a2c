/**
 * The one table from domain error codes (the coordinator's and the routing lib's) to HTTP
 * status. A plan that is malformed is 400; one that is well-formed but cannot run here is 422.
 */
export const COORDINATOR_ERROR_TABLE = {
  INVALID_JSON: 400,
  INVALID_PLAN: 400,
  INVALID_ROUTING_CONFIG: 400,
  UNAUTHENTICATED: 401,
  ADMIN_FORBIDDEN: 403,
  NOT_FOUND: 404,
  ROLLOUT_NOT_FOUND: 404,
  JOB_NOT_FOUND: 404,
  ROUTING_TABLE_MISSING: 404,
  METHOD_NOT_ALLOWED: 405,
  ROLLOUT_CONFLICT: 409,
  INVALID_COMMAND: 409,
  REVISION_CONFLICT: 409,
  EPOCH_CONFLICT: 409,
  FENCED: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  PLAN_REJECTED: 422,
  // Route edits the model repository cannot serve (RouteEditValidator), as on the router.
  UNKNOWN_MODEL: 422,
  MODEL_CONFIG_INVALID: 422,
  UNKNOWN_VERSION: 422,
  VERSION_NOT_SELECTED: 422,
  MANIFEST_INVALID: 422,
  INTERNAL: 500,
} as const satisfies Record<string, number>;

export type CoordinatorErrorCode = keyof typeof COORDINATOR_ERROR_TABLE;

/** Framework failures (unknown path, body parsing) by their HTTP status. */
const FRAMEWORK_STATUS: Readonly<Record<number, CoordinatorErrorCode>> = {
  400: 'INVALID_JSON',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
};

export interface ErrorReply {
  status: number;
  body: { error: { code: CoordinatorErrorCode; message: string; details?: unknown } };
}

/** Anything thrown → status and `{error: {code, message, details?}}`; unknown errors are 500. */
export function errorReply(err: unknown): ErrorReply {
  const code = codeOf(err);
  if (code === 'INTERNAL') {
    return { status: 500, body: { error: { code, message: 'internal error' } } };
  }
  const message = err instanceof Error ? err.message : String(err);
  const issues = (err as { issues?: unknown }).issues;
  return {
    status: COORDINATOR_ERROR_TABLE[code],
    body: { error: { code, message, ...(Array.isArray(issues) ? { details: { issues } } : {}) } },
  };
}

function codeOf(err: unknown): CoordinatorErrorCode {
  const code = (err as { code?: unknown } | null)?.code;
  if (
    typeof code === 'string' &&
    Object.prototype.hasOwnProperty.call(COORDINATOR_ERROR_TABLE, code)
  ) {
    return code as CoordinatorErrorCode;
  }
  const status = (err as { statusCode?: unknown; status?: unknown } | null) ?? {};
  const http = typeof status.statusCode === 'number' ? status.statusCode : status.status;
  if (typeof http === 'number') {
    const mapped = FRAMEWORK_STATUS[http];
    if (mapped) return mapped;
  }
  if (typeof (err as { getStatus?: unknown } | null)?.getStatus === 'function') {
    const mapped = FRAMEWORK_STATUS[(err as { getStatus(): number }).getStatus()];
    if (mapped) return mapped;
  }
  return 'INTERNAL';
}
