import { startTracing, tracingEnabled, type TracingHandle } from '../tracing';
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace-base';

/**
 * The process's tracer, exporting to memory, for specs of any app. A fresh exporter each time:
 * shutting the handle down also stops its exporter, which then refuses every later span.
 */
export class InMemoryTracing {
  private readonly exporter = new InMemorySpanExporter();
  private readonly handle: TracingHandle;

  constructor(service = 'test') {
    const handle = startTracing(
      service,
      undefined,
      { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:1' },
      this.exporter,
    );
    if (!handle) throw new Error('tracing did not start');
    this.handle = handle;
  }

  /** Every span ended so far (the batch processor flushed first). */
  async spans(): Promise<ReadableSpan[]> {
    await this.handle.flush();
    return [...this.exporter.getFinishedSpans()];
  }

  /** Forgets the spans ended so far. */
  reset(): void {
    this.exporter.reset();
  }

  /** Stops tracing; afterwards `tracingEnabled()` is false again. */
  async shutdown(): Promise<boolean> {
    await this.handle.shutdown();
    return tracingEnabled();
  }
}

/** The spans whose parent is `parent`, in the order they ended. */
export function childrenOf(spans: readonly ReadableSpan[], parent: ReadableSpan): ReadableSpan[] {
  const { spanId, traceId } = parent.spanContext();
  return spans.filter(
    (s) => s.parentSpanContext?.spanId === spanId && s.spanContext().traceId === traceId,
  );
}

/** The one child of `parent` named `name` (throws when there is none or several). */
export function childNamed(
  spans: readonly ReadableSpan[],
  parent: ReadableSpan,
  name: string,
): ReadableSpan {
  const found = childrenOf(spans, parent).filter((s) => s.name === name);
  if (found.length !== 1) throw new Error(`${found.length} children named ${name}`);
  return found[0]!;
}

export type { ReadableSpan };
