import { UnauthenticatedError } from '@mesh/routing';
import { Registry } from 'prom-client';
import type { CallContext } from '../predict/predict-commands';
import { RouterMetrics } from '../router.metrics';
import { RequestValidationError, ShuttingDownError } from '../errors/router.errors';
import { callContext } from '../http/call-context';
import { GrpcCallRecorder } from './grpc-call-recorder';
import { accessLines } from '../testing/access-lines';
import { InMemoryTracing } from '../../../../libs/telemetry/src/testing/in-memory-tracing';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const TRACEPARENT = `00-${TRACE}-00f067aa0ba902b7-01`;

/** A recorder writing real access lines (parsed back) and a real counter. */
function setup() {
  const { log, lines } = accessLines();
  const registry = new Registry();
  const recorder = new GrpcCallRecorder(log, new RouterMetrics(registry));
  const counted = async () =>
    (await registry.getSingleMetric('mesh_router_requests_total')!.get()).values.map(
      (v): Record<string, string | number | undefined> => ({ ...v.labels, n: v.value }),
    );
  return { recorder, lines, counted };
}

function ctxOf(md: Record<string, string> = {}, signal?: AbortSignal): CallContext {
  return callContext('grpc', (name) => md[name], undefined, signal);
}

describe('GrpcCallRecorder', () => {
  it('writes one access line per request, success and failure, with the mesh code and trace id', async () => {
    const { recorder, lines, counted } = setup();
    const ok = ctxOf({ 'x-request-id': 'ok-1', traceparent: TRACEPARENT });
    await recorder.run('Predict', ok, async (c) => {
      c.served = { tenant: 'acme', task: 'intent', model: 'intent-zh', version: 2 };
      return {};
    });
    const bad = ctxOf({ 'x-request-id': 'bad-1' });
    await expect(
      recorder.run('PredictBatch', bad, async (c) => {
        c.served = { tenant: 'acme' };
        throw new RequestValidationError([{ path: 'texts', message: 'must not be empty' }]);
      }),
    ).rejects.toBeInstanceOf(RequestValidationError);
    expect(lines).toEqual([
      expect.objectContaining({
        event: 'access',
        requestId: 'ok-1',
        transport: 'grpc',
        method: 'Predict',
        tenant: 'acme',
        model: 'intent-zh',
        version: 2,
        status: 0,
        failed: false,
        traceId: TRACE,
      }),
      expect.objectContaining({
        requestId: 'bad-1',
        method: 'PredictBatch',
        status: 3,
        failed: true,
        code: 'INVALID_ARGUMENT',
      }),
    ]);
    expect(lines[0]).not.toHaveProperty('code');
    expect(lines[1]).not.toHaveProperty('traceId');
    expect(await counted()).toEqual([
      {
        transport: 'grpc',
        method: 'predict',
        tenant: 'acme',
        task: 'intent',
        model: 'intent-zh',
        version: '2',
        outcome: 'ok',
        n: 1,
      },
      {
        transport: 'grpc',
        method: 'predict_batch',
        tenant: 'acme',
        task: '',
        model: '',
        version: '',
        outcome: 'INVALID_ARGUMENT',
        n: 1,
      },
    ]);
  });

  it('counts a caller that left as CLIENT_CLOSED, and a refusal without a tenant', async () => {
    const { recorder, counted } = setup();
    const gone = new AbortController();
    gone.abort();
    await expect(
      recorder.run('Predict', ctxOf({}, gone.signal), () => Promise.reject(new Error('cancelled'))),
    ).rejects.toThrow('cancelled');
    await expect(
      recorder.run('Tokenize', ctxOf(), () => Promise.reject(new UnauthenticatedError())),
    ).rejects.toBeInstanceOf(UnauthenticatedError);
    const outcomes = (await counted()).map((c) => [c.method, c.tenant, c.outcome]);
    expect(outcomes).toEqual([
      ['predict', '', 'CLIENT_CLOSED'],
      ['tokenize', '', 'UNAUTHENTICATED'],
    ]);
  });

  it('records requests answered without running, and ignores paths that are not the Predictor', async () => {
    const { recorder, lines, counted } = setup();
    recorder.refused('PredictStream', ctxOf(), new ShuttingDownError('send again'));
    recorder.refusedCall('/mesh.v1.Predictor/Tokenize', new RequestValidationError([]));
    recorder.refusedCall('/mesh.v1.Jobs/SubmitJob', new RequestValidationError([]));
    recorder.refusedCall('/mesh.v1.Predictor/NoSuchMethod', new RequestValidationError([]));
    expect(lines.map((l) => [l.method, l.code])).toEqual([
      ['PredictStream', 'SHUTTING_DOWN'],
      ['Tokenize', 'INVALID_ARGUMENT'],
    ]);
    expect((await counted()).map((c) => [c.method, c.outcome])).toEqual([
      ['predict', 'SHUTTING_DOWN'],
      ['tokenize', 'INVALID_ARGUMENT'],
    ]);
  });

  it('does not count ListTasks, which predicts nothing, but logs it', async () => {
    const { recorder, lines, counted } = setup();
    await recorder.run('ListTasks', ctxOf(), async () => ({}));
    expect(lines).toHaveLength(1);
    expect(await counted()).toEqual([]);
  });

  it('starts no span with tracing off', () => {
    const { recorder } = setup();
    const ctx = ctxOf({ traceparent: TRACEPARENT });
    recorder.startSpan('PredictStream', ctx);
    expect(ctx.span).toBeUndefined();
  });
});

describe('GrpcCallRecorder, traced', () => {
  let tracing: InMemoryTracing;

  beforeAll(() => {
    tracing = new InMemoryTracing('router');
  });

  afterAll(async () => {
    expect(await tracing.shutdown()).toBe(false);
  });

  it('gives each stream message its own span in the caller trace, ended with its outcome', async () => {
    const { recorder, lines } = setup();
    for (const [id, fail] of [
      ['m-1', false],
      ['m-2', true],
    ] as const) {
      const ctx = ctxOf({ 'x-request-id': id, traceparent: TRACEPARENT });
      recorder.startSpan('PredictStream', ctx);
      await recorder
        .run('PredictStream', ctx, () =>
          fail ? Promise.reject(new RequestValidationError([])) : Promise.resolve({}),
        )
        .catch(() => undefined);
    }
    const spans = await tracing.spans();
    expect(spans.map((s) => s.name)).toEqual([
      'mesh.v1.Predictor/PredictStream',
      'mesh.v1.Predictor/PredictStream',
    ]);
    expect(spans.map((s) => s.spanContext().traceId)).toEqual([TRACE, TRACE]);
    expect(spans.map((s) => s.parentSpanContext?.spanId)).toEqual([
      '00f067aa0ba902b7',
      '00f067aa0ba902b7',
    ]);
    expect(
      spans.map((s) => [s.attributes['mesh.request_id'], s.attributes['mesh.outcome']]),
    ).toEqual([
      ['m-1', 'ok'],
      ['m-2', 'INVALID_ARGUMENT'],
    ]);
    // The access line names the message's own trace.
    expect(lines.map((l) => l.traceId)).toEqual([TRACE, TRACE]);
  });
});
