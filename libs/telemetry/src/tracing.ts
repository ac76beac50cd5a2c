import {
  diag,
  DiagLogLevel,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  TraceFlags,
  type Attributes,
  type DiagLogger,
  type Link,
  type Span,
  type SpanContext,
  type TimeInput,
  type Tracer,
} from '@opentelemetry/api';
import { OTLPTraceExporter as OtlpJsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as OtlpProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base';
import { ConfigError } from '@mesh/config';
import type { Logger } from 'pino';

export { SpanKind, type Span };

/** `OTEL_EXPORTER_OTLP_PROTOCOL` values this build exports with (`grpc` is not bundled). */
export const OTLP_PROTOCOLS = ['http/protobuf', 'http/json'] as const;
export type OtlpProtocol = (typeof OTLP_PROTOCOLS)[number];

/** The one tracer of the process while tracing is on; undefined (nothing created) when off. */
let tracer: Tracer | undefined;

/**
 * The one check in front of every span: false unless `startTracing` found an OTLP endpoint.
 * Off, the hot path creates no span, context or SDK object.
 */
export function tracingEnabled(): boolean {
  return tracer !== undefined;
}

export type TracingEnv = Readonly<Record<string, string | undefined>>;

/** What `startTracing` decided from the environment (also what the boot log says). */
export interface TracingSettings {
  service: string;
  protocol: OtlpProtocol;
  /** `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` as is, else `OTEL_EXPORTER_OTLP_ENDPOINT` + /v1/traces. */
  endpoint: string;
}

/**
 * Reads the standard OpenTelemetry variables. Undefined (tracing off) when no OTLP endpoint is
 * set, `OTEL_SDK_DISABLED=true` or `OTEL_TRACES_EXPORTER=none`. An unsupported protocol refuses
 * boot like any bad variable.
 */
export function tracingSettingsOf(service: string, env: TracingEnv): TracingSettings | undefined {
  const signal = nonEmpty(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
  const base = nonEmpty(env.OTEL_EXPORTER_OTLP_ENDPOINT);
  if (signal === undefined && base === undefined) return undefined;
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return undefined;
  if (env.OTEL_TRACES_EXPORTER?.trim().toLowerCase() === 'none') return undefined;
  const rawProtocol =
    nonEmpty(env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL) ??
    nonEmpty(env.OTEL_EXPORTER_OTLP_PROTOCOL) ??
    'http/protobuf';
  const protocol = OTLP_PROTOCOLS.find((p) => p === rawProtocol);
  if (protocol === undefined) {
    const variable =
      nonEmpty(env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL) !== undefined
        ? 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL'
        : 'OTEL_EXPORTER_OTLP_PROTOCOL';
    throw new ConfigError(service, [
      {
        variable,
        reason: `"${rawProtocol}" is not supported; expected one of ${OTLP_PROTOCOLS.join(', ')}`,
      },
    ]);
  }
  const endpoint = signal ?? `${base!.replace(/\/+$/, '')}/v1/traces`;
  return { service: nonEmpty(env.OTEL_SERVICE_NAME) ?? service, protocol, endpoint };
}

export interface TracingHandle {
  readonly settings: TracingSettings;
  /** Exports what the batch processor holds now. */
  flush(): Promise<void>;
  /** Stops tracing: exports what is still buffered (bounded by OTEL_BSP_EXPORT_TIMEOUT). */
  shutdown(): Promise<void>;
}

/**
 * Starts the process's tracer (one BasicTracerProvider, a BatchSpanProcessor reading
 * `OTEL_BSP_*`, the sampler from `OTEL_TRACES_SAMPLER`/`_ARG`, an OTLP/HTTP exporter in the
 * chosen encoding). Undefined when tracing is off. No global provider, context manager or
 * instrumentation is registered: spans are made by hand with explicit parents.
 */
export function startTracing(
  service: string,
  logger?: Pick<Logger, 'info' | 'warn'>,
  env: TracingEnv = process.env,
  /** Replaces the OTLP exporter (specs: an InMemorySpanExporter). */
  exporterOverride?: SpanExporter,
): TracingHandle | undefined {
  const settings = tracingSettingsOf(service, env);
  if (settings === undefined) return undefined;
  const options = { url: settings.endpoint };
  const exporter =
    exporterOverride ??
    (settings.protocol === 'http/json'
      ? new OtlpJsonExporter(options)
      : new OtlpProtoExporter(options));
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': settings.service }),
    spanProcessors: [new BatchSpanProcessor(exporter)],
  });
  tracer = provider.getTracer('@mesh/telemetry');
  // The SDK reports a failed export (collector down, refused, timed out) only through its
  // diagnostic logger; without one, spans vanish silently.
  if (logger) diag.setLogger(exportProblemLogger(logger, settings.endpoint), DiagLogLevel.WARN);
  logger?.info(
    { event: 'tracing', ...settings },
    `tracing to ${settings.endpoint} (${settings.protocol})`,
  );
  let stopped: Promise<void> | undefined;
  return {
    settings,
    flush: () => provider.forceFlush(),
    shutdown: () => {
      stopped ??= provider
        .shutdown()
        .then(
          () => undefined,
          (err: unknown) => logger?.warn({ err }, 'tracing: spans not exported at shutdown'),
        )
        .finally(() => {
          tracer = undefined;
          diag.disable();
        });
      return stopped;
    },
  };
}

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;
const ZERO_TRACE = '0'.repeat(32);
const ZERO_SPAN = '0'.repeat(16);

/** The remote span context of a W3C `traceparent` (version 00), or undefined when invalid. */
export function spanContextOf(traceparent: string | undefined): SpanContext | undefined {
  if (traceparent === undefined) return undefined;
  const m = TRACEPARENT.exec(traceparent.trim().toLowerCase());
  if (!m || m[1] === ZERO_TRACE || m[2] === ZERO_SPAN) return undefined;
  return { traceId: m[1]!, spanId: m[2]!, traceFlags: parseInt(m[3]!, 16), isRemote: true };
}

/** The W3C `traceparent` naming `span` as the parent (what goes out to the next hop). */
export function traceparentOf(span: Span): string {
  const c = span.spanContext();
  const flags = (c.traceFlags & TraceFlags.SAMPLED).toString(16).padStart(2, '0');
  return `00-${c.traceId}-${c.spanId}-${flags}`;
}

export interface SpanStart {
  kind?: SpanKind;
  attributes?: Attributes;
  links?: Link[];
  /** `performance.now()` or epoch milliseconds; default now. */
  startTime?: TimeInput;
}

/**
 * A span continuing the caller's `traceparent` (a new trace without one). Only call behind
 * `tracingEnabled()`; throws otherwise.
 */
export function startRemoteChildSpan(
  name: string,
  traceparent: string | undefined,
  start: SpanStart = {},
): Span {
  const parent = spanContextOf(traceparent);
  const ctx = parent ? trace.setSpanContext(ROOT_CONTEXT, parent) : ROOT_CONTEXT;
  return activeTracer().startSpan(name, { kind: SpanKind.SERVER, ...start }, ctx);
}

/** A child of `parent` (kind internal unless said). */
export function startChildSpan(name: string, parent: Span, start: SpanStart = {}): Span {
  const ctx = trace.setSpan(ROOT_CONTEXT, parent);
  return activeTracer().startSpan(name, { kind: SpanKind.INTERNAL, ...start }, ctx);
}

/** OpenTelemetry's attributes of one gRPC call: `rpc.system`, `rpc.service` and `rpc.method`. */
export function grpcCallAttributes(
  service: string,
  method: string,
): Record<'rpc.system' | 'rpc.service' | 'rpc.method', string> {
  return { 'rpc.system': 'grpc', 'rpc.service': service, 'rpc.method': method };
}

/**
 * The client span of one gRPC call (`<service>/<method>`), child of `parent`, with the call's
 * RPC attributes beside `start`'s own; its `traceparentOf` is what the server should receive.
 */
export function startGrpcClientSpan(
  service: string,
  method: string,
  parent: Span,
  start: Omit<SpanStart, 'kind'> = {},
): Span {
  return startChildSpan(`${service}/${method}`, parent, {
    ...start,
    kind: SpanKind.CLIENT,
    attributes: { ...grpcCallAttributes(service, method), ...start.attributes },
  });
}

/** A child of `parent` that already happened: from `startTime` to `endTime`. */
export function recordChildSpan(
  name: string,
  parent: Span,
  startTime: TimeInput,
  endTime: TimeInput,
  attributes?: Attributes,
): void {
  startChildSpan(name, parent, { startTime, ...(attributes ? { attributes } : {}) }).end(endTime);
}

/** A link to `span` (e.g. from a call shared by several requests to each request's span). */
export function linkTo(span: Span, attributes?: Attributes): Link {
  return { context: span.spanContext(), ...(attributes ? { attributes } : {}) };
}

/**
 * Ends a span with the outcome the caller saw: `mesh.outcome` (`ok` or the error code) and
 * status ERROR with the message unless ok.
 */
export function endSpan(span: Span, outcome: string, message?: string, endTime?: TimeInput): void {
  span.setAttribute('mesh.outcome', outcome);
  if (outcome !== 'ok') span.setStatus({ code: SpanStatusCode.ERROR, message: message ?? outcome });
  span.end(endTime);
}

/** How often at most a failing export is logged; the lines in between are counted. */
export const EXPORT_PROBLEM_LOG_EVERY_MS = 60_000;

/**
 * The SDK's diagnostic messages (export failures, dropped spans) as warn lines of the app's log,
 * at most one per EXPORT_PROBLEM_LOG_EVERY_MS: a collector that is down must not flood the log
 * of every request. The next line says how many were held back.
 */
export function exportProblemLogger(
  logger: Pick<Logger, 'warn'>,
  endpoint: string,
  now: () => number = Date.now,
): DiagLogger {
  let lastAt: number | undefined;
  let held = 0;
  const report = (message: string, ...args: unknown[]) => {
    const at = now();
    if (lastAt !== undefined && at - lastAt < EXPORT_PROBLEM_LOG_EVERY_MS) {
      held++;
      return;
    }
    const detail = args.map((a) => (a instanceof Error ? a.message : String(a))).join(' ');
    logger.warn(
      { event: 'tracing.export', endpoint, heldBack: held },
      `tracing: ${message}${detail === '' ? '' : ` ${detail}`}`,
    );
    lastAt = at;
    held = 0;
  };
  const ignore = () => undefined;
  return { error: report, warn: report, info: ignore, debug: ignore, verbose: ignore };
}

function activeTracer(): Tracer {
  if (tracer === undefined) throw new Error('tracing is off: check tracingEnabled() first');
  return tracer;
}

function nonEmpty(value: string | undefined): string | undefined {
  const v = value?.trim();
  return v === undefined || v === '' ? undefined : v;
}
