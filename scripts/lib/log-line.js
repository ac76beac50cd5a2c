// One app log line as `npm run up` prints it. Plain CommonJS, like the rest of scripts/lib.
'use strict';

/** pino's level names, lowest first (a line below the console's level is hidden). */
const LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal'];

/** `: intent-zh v2` from a line's model/version fields ('' when the message names it already). */
function subjectOf(e) {
  if (typeof e.model !== 'string' || e.model === '') return '';
  if (typeof e.msg === 'string' && e.msg.includes(`'${e.model}'`)) return '';
  const version = e.version === undefined || e.version === '' ? '' : ` v${e.version}`;
  return `: ${e.model}${version}`;
}

/** A gRPC status as its name (0 → OK), so it reads like the HTTP status beside it. */
const GRPC_STATUS = [
  'OK',
  'CANCELLED',
  'UNKNOWN',
  'INVALID_ARGUMENT',
  'DEADLINE_EXCEEDED',
  'NOT_FOUND',
  'ALREADY_EXISTS',
  'PERMISSION_DENIED',
  'RESOURCE_EXHAUSTED',
  'FAILED_PRECONDITION',
  'ABORTED',
  'OUT_OF_RANGE',
  'UNIMPLEMENTED',
  'INTERNAL',
  'UNAVAILABLE',
  'DATA_LOSS',
  'UNAUTHENTICATED',
];

/**
 * An access line (`event: "access"`) in one short line, status first so a column of them is
 * scanned by outcome: `200 POST /v1/predict intent-zh@2 3.1 ms acme req=…`, with the mesh
 * error code after the status of a failure (`503 MODEL_LOADING POST …`).
 */
function accessText(e) {
  const grpc = e.transport === 'grpc';
  const status = grpc ? `grpc ${GRPC_STATUS[e.status] ?? e.status}` : String(e.status);
  const parts = [status];
  if (typeof e.code === 'string' && e.code !== '') parts.push(e.code);
  parts.push(typeof e.route === 'string' ? `${e.method} ${e.route}` : String(e.method));
  if (typeof e.model === 'string' && e.model !== '') {
    parts.push(e.version === undefined || e.version === '' ? e.model : `${e.model}@${e.version}`);
  }
  if (typeof e.latencyMs === 'number') parts.push(`${e.latencyMs.toFixed(1)} ms`);
  if (typeof e.tenant === 'string' && e.tenant !== '') parts.push(e.tenant);
  if (e.requestId) parts.push(`req=${e.requestId}`);
  return parts.join(' ');
}

/**
 * Formats one line an app wrote: a pino JSON line becomes `level [context] msg: model vN — why`
 * (the model and version are what tells `version routable` lines apart), an access line the
 * compact form of `accessText`; other text is kept. A JSON line below `logLevel` (default
 * `info`; `npm run up` passes LOG_LEVEL) gets `text: undefined`: not printed, as the model
 * host's per-request lines at `debug`.
 * Returns the text and the parsed event (undefined for non-JSON lines).
 */
function formatLogLine(line, { logLevel = 'info' } = {}) {
  if (!line.startsWith('{')) return { text: line, event: undefined };
  let e;
  try {
    e = JSON.parse(line);
  } catch {
    return { text: line, event: undefined };
  }
  const level = e.level || 'info';
  const shown = LEVELS.indexOf(logLevel);
  if (shown > 0 && LEVELS.indexOf(level) >= 0 && LEVELS.indexOf(level) < shown) {
    return { text: undefined, event: e };
  }
  // No level column: the status says how the request ended.
  if (e.event === 'access') return { text: accessText(e), event: e };
  let text = `${level.padEnd(5)} ${e.context ? `[${e.context}] ` : ''}${e.msg ?? ''}`;
  text += subjectOf(e);
  const why = (e.err && e.err.message) || (typeof e.reason === 'string' ? e.reason : '');
  if (why) text += ` — ${why}`;
  return { text, event: e };
}

module.exports = { formatLogLine };
