import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pollUntil } from './poll';

/**
 * A stand-in OpenTelemetry Collector for the tracing suites: an OTLP/HTTP JSON receiver on
 * loopback that keeps every span it is sent, and the helpers those suites share.
 */

export interface OtlpAttribute {
  key: string;
  value: { stringValue?: string; intValue?: number | string; boolValue?: boolean };
}

/** The parts of an OTLP/JSON ExportTraceServiceRequest the test reads. */
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: OtlpAttribute[];
  links?: { traceId: string; spanId: string }[];
}

interface OtlpExport {
  resourceSpans?: {
    resource?: { attributes?: OtlpAttribute[] };
    scopeSpans?: { spans?: OtlpSpan[] }[];
  }[];
}

export interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Record<string, string | number | boolean | undefined>;
  links: { traceId: string; spanId: string }[];
}

/** A stand-in OpenTelemetry Collector: keeps every span POSTed to /v1/traces (OTLP JSON). */
export class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];
  private server: Server | undefined;

  async start(): Promise<string> {
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        if (req.method === 'POST' && req.url === '/v1/traces') {
          this.collect(JSON.parse(Buffer.concat(chunks).toString('utf8')));
        }
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    this.server = server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  inTrace(traceId: string): ReceivedSpan[] {
    return this.spans.filter((s) => s.traceId === traceId);
  }

  private collect(body: OtlpExport): void {
    for (const rs of body.resourceSpans ?? []) {
      const service = attributesOf(rs.resource?.attributes)['service.name'] as string;
      for (const ss of rs.scopeSpans ?? []) {
        for (const s of ss.spans ?? []) {
          this.spans.push({
            service,
            traceId: s.traceId,
            spanId: s.spanId,
            ...(s.parentSpanId ? { parentSpanId: s.parentSpanId } : {}),
            name: s.name,
            kind: s.kind,
            attributes: attributesOf(s.attributes),
            links: (s.links ?? []).map((l) => ({ traceId: l.traceId, spanId: l.spanId })),
          });
        }
      }
    }
  }
}

export function attributesOf(list: OtlpAttribute[] | undefined): ReceivedSpan['attributes'] {
  const out: ReceivedSpan['attributes'] = {};
  for (const a of list ?? []) {
    const v = a.value;
    out[a.key] =
      v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : undefined) ?? v.boolValue;
  }
  return out;
}

/** OTLP span kinds (SPAN_KIND_SERVER, SPAN_KIND_CLIENT). */
export const SERVER = 2;
export const CLIENT = 3;

/** The OTEL_* variables that point an app at `endpoint` with a short export delay. */
export function otelEnv(endpoint: string): Record<string, string> {
  return {
    OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_BSP_SCHEDULE_DELAY: '100',
  };
}

/** A caller's trace: a fresh trace id and the id of the caller's own span. */
export function callerTrace(): { traceId: string; spanId: string; traceparent: string } {
  const hex = (n: number) =>
    Array.from({ length: n }, () => Math.floor(Math.random() * 16).toString(16)).join('');
  const traceId = hex(32);
  const spanId = hex(16);
  return { traceId, spanId, traceparent: `00-${traceId}-${spanId}-01` };
}

/** Waits until the receiver holds spans of the trace matching every name given. */
export function spansOf(
  receiver: OtlpReceiver,
  traceId: string,
  names: string[],
): Promise<ReceivedSpan[]> {
  return pollUntil(
    () => {
      const spans = receiver.inTrace(traceId);
      return names.every((n) => spans.some((s) => s.name === n)) ? spans : undefined;
    },
    { timeoutMs: 30_000, what: `spans ${names.join(', ')} of trace ${traceId}` },
  );
}
