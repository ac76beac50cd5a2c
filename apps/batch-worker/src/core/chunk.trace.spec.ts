import type { JobItem, JobRecord, JobRepository } from '@mesh/jobs';
import type { EncodedBatch, OutputTensor, TextInput } from '@mesh/preprocessing';
import { SpanStatusCode } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import pino from 'pino';
import { Registry } from 'prom-client';
import type { ChunkInference, InferMeta, PinnedModel } from './chunk-inference';
import { ChunkProcessor, WaitForVersion } from './chunk-processor';
import { ChunkRunner } from './chunk-runner';
import { ColdStartRequester } from './cold-start-requester';
import { JobFinalizer } from './job-finalizer';
import { WorkerMetrics } from './worker.metrics';
import { InMemoryTracing } from '../../../../libs/telemetry/src/testing/in-memory-tracing';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const SUBMIT_SPAN = '00f067aa0ba902b7';
const SUBMIT = `00-${TRACE}-${SUBMIT_SPAN}-01`;

/** A one-row-per-call model whose "logits" are each row's text length. */
const model: PinnedModel = {
  model: 'm',
  version: 2,
  pipeline: 'p@2',
  kind: 'classification',
  hardMaxChars: 100,
  maxBatchSize: 2,
  encode: (items: readonly TextInput[]) =>
    ({ batchSize: items.length, lengths: items.map((i) => i.text.length) }) as never,
  postprocess: (output: OutputTensor) =>
    Array.from(output.data, (v) => ({
      kind: 'classification' as const,
      label: `len${v}`,
      score: 1,
      scores: [],
    })),
};

/** A processor over an in-memory job store and a real runner; the backend is a fake. */
function setup(options: { traceparent?: string; resident?: boolean; fail?: Error } = {}) {
  const record = {
    id: 'j',
    tenant: 't',
    task: 'sentiment',
    model: 'm',
    version: 2,
    state: 'running',
    total: 3,
    chunks: 1,
    succeeded: 3,
    failedItems: 0,
    ...(options.traceparent ? { traceparent: options.traceparent } : {}),
  } as JobRecord;
  const metas: InferMeta[] = [];
  const repository = {
    get: () => Promise.resolve(record),
    markRunning: () => Promise.resolve('running'),
    markWaiting: () => Promise.resolve('waiting_for_version'),
    readItems: () => Promise.resolve([{ text: 'a' }, { text: 'bb' }, { text: 'ccc' }] as JobItem[]),
    writeResults: () => Promise.resolve(true),
    finish: () => Promise.resolve('completed'),
  } as unknown as JobRepository;
  const resident = options.resident ?? true;
  const inference = {
    servable: () => model,
    unroutableReason: () => (resident ? undefined : 'no backend reports m v2 READY'),
    isCold: () => !resident,
    infer: (_v: PinnedModel, batch: EncodedBatch, meta: InferMeta) => {
      metas.push(meta);
      if (options.fail) return Promise.reject(options.fail);
      const lengths = (batch as unknown as { lengths: number[] }).lengths;
      return Promise.resolve({ shape: [lengths.length, 1], data: Float32Array.from(lengths) });
    },
  } as unknown as ChunkInference;
  const metrics = new WorkerMetrics(new Registry(), () => Promise.resolve({ depth: {}, jobs: {} }));
  const logger = pino({ enabled: false });
  const processor = new ChunkProcessor(
    repository,
    inference,
    new ChunkRunner(inference),
    metrics,
    logger,
    { inFlightBatches: 2, batchRows: 8 },
    new ColdStartRequester(
      () => Promise.resolve(),
      1000,
      () => undefined,
    ),
  );
  const finalizer = new JobFinalizer(repository, metrics, logger);
  return { processor, finalizer, metas };
}

const chunkJob = (attemptsMade = 0) => ({
  id: 'j-c0',
  data: { jobId: 'j', tenant: 't', chunk: 0 },
  attemptsMade,
  opts: { attempts: 1 },
});

describe('bulk job tracing in the worker', () => {
  let tracing: InMemoryTracing;

  beforeAll(() => {
    tracing = new InMemoryTracing('batch-worker');
  });

  afterEach(() => tracing.reset());

  afterAll(async () => {
    expect(await tracing.shutdown()).toBe(false);
  });

  async function finished(): Promise<ReadableSpan[]> {
    return tracing.spans();
  }

  const named = (spans: ReadableSpan[], name: string) => spans.filter((s) => s.name === name);

  it('records a chunk under the submit span, with tokenize and backend-call children whose context the backend gets', async () => {
    const t = setup({ traceparent: SUBMIT });
    await expect(t.processor.process(chunkJob())).resolves.toBe('written');
    const spans = await finished();
    const [chunk] = named(spans, 'bulk.chunk');
    expect(chunk!.spanContext().traceId).toBe(TRACE);
    expect(chunk!.parentSpanContext?.spanId).toBe(SUBMIT_SPAN);
    expect(chunk!.attributes).toMatchObject({
      'mesh.job.id': 'j',
      'mesh.chunk.index': 0,
      'mesh.chunk.attempt': 0,
      'mesh.chunk.items': 3,
      'mesh.model': 'm',
      'mesh.version': 2,
      'mesh.items.succeeded': 3,
      'mesh.items.failed': 0,
      'mesh.outcome': 'ok',
    });
    // Three items, two rows per call: two calls, each a client span under the chunk.
    const calls = named(spans, 'inference.GRPCInferenceService/ModelInfer');
    expect(calls.map((c) => c.attributes['mesh.batch.rows'])).toEqual([2, 1]);
    for (const call of calls) {
      expect(call.parentSpanContext?.spanId).toBe(chunk!.spanContext().spanId);
      expect(call.attributes['mesh.outcome']).toBe('ok');
    }
    expect(t.metas.map((m) => m.traceparent)).toEqual(
      calls.map((c) => `00-${TRACE}-${c.spanContext().spanId}-01`),
    );
    expect(named(spans, 'tokenize')).toHaveLength(2);
  });

  it('shows a parked chunk (version resident nowhere) as a span with the wait and the cold start', async () => {
    const t = setup({ traceparent: SUBMIT, resident: false });
    await expect(t.processor.process(chunkJob())).rejects.toBeInstanceOf(WaitForVersion);
    const [chunk] = named(await finished(), 'bulk.chunk');
    expect(chunk!.parentSpanContext?.spanId).toBe(SUBMIT_SPAN);
    expect(chunk!.attributes['mesh.outcome']).toBe('waiting');
    // Waiting is the fleet's state, not a failure of the chunk.
    expect(chunk!.status.code).toBe(SpanStatusCode.UNSET);
    expect(chunk!.events.map((e) => [e.name, e.attributes])).toEqual([
      [
        'bulk.chunk.parked',
        {
          'mesh.wait.reason': 'm v2 is loading: no backend serves it yet, its load was asked for',
          'mesh.cold_start': true,
        },
      ],
    ]);
    expect(t.metas).toEqual([]);
  });

  it('ends a chunk that failed for good, and its backend call, with the error code', async () => {
    const fail = Object.assign(new Error('bad output'), { code: 'BAD_BACKEND_RESPONSE' });
    const t = setup({ traceparent: SUBMIT, fail });
    await expect(t.processor.process(chunkJob())).resolves.toBe('failed_items');
    const spans = await finished();
    const [chunk] = named(spans, 'bulk.chunk');
    expect(chunk!.attributes).toMatchObject({
      'mesh.outcome': 'BAD_BACKEND_RESPONSE',
      'mesh.items.failed': 3,
    });
    expect(chunk!.status).toEqual({ code: SpanStatusCode.ERROR, message: 'bad output' });
    const [call] = named(spans, 'inference.GRPCInferenceService/ModelInfer');
    expect(call!.attributes['mesh.outcome']).toBe('BAD_BACKEND_RESPONSE');
  });

  it('records the job completion as a child of the submit span', async () => {
    const t = setup({ traceparent: SUBMIT });
    await t.finalizer.process({ jobId: 'j', tenant: 't' });
    const [finish] = named(await finished(), 'bulk.job.finish');
    expect(finish!.parentSpanContext?.spanId).toBe(SUBMIT_SPAN);
    expect(finish!.attributes).toMatchObject({
      'mesh.job.id': 'j',
      'mesh.job.items': 3,
      'mesh.items.succeeded': 3,
      'mesh.outcome': 'ok',
    });
  });

  it('records nothing for a job submitted untraced, and sends no traceparent', async () => {
    const t = setup();
    await expect(t.processor.process(chunkJob())).resolves.toBe('written');
    await t.finalizer.process({ jobId: 'j', tenant: 't' });
    expect(await finished()).toEqual([]);
    expect(t.metas.map((m) => m.traceparent)).toEqual([undefined, undefined]);
  });
});
