import { SpanStatusCode } from '@opentelemetry/api';
import { BackendError, type CallOptions, type KServeClient } from '@mesh/kserve';
import { startRemoteChildSpan, traceparentOf, tracingEnabled } from '@mesh/telemetry';
import {
  childrenOf,
  InMemoryTracing,
} from '../../../../../libs/telemetry/src/testing/in-memory-tracing';
import { KServeBackendFleet } from './kserve-backend-fleet';
import { KServeWarmer } from './kserve-warmer';
import type { RepositoryModelCatalog } from './repository-model-catalog';

/** A backend answering repository loads and inferences, recording the options of each call. */
function client(address: string, failing = false) {
  const calls: CallOptions[] = [];
  const answer = async (_req: unknown, o: CallOptions) => {
    calls.push(o);
    if (failing) throw new BackendError(address, 'RepositoryModelLoad', 14, 'connection refused');
    return {};
  };
  return {
    calls,
    client: { address, repositoryModelLoad: answer, modelInfer: answer } as unknown as KServeClient,
  };
}

const catalog = {
  servingConfig: async () => 'version_policy: { specific: { versions: [1, 2] } }',
  load: async () => ({ encode: () => ({ tensors: [] }) }),
} as unknown as RepositoryModelCatalog;

describe('KServe fleet calls of a traced rollout step', () => {
  let tracing: InMemoryTracing;

  beforeEach(() => {
    tracing = new InMemoryTracing();
  });

  afterEach(async () => {
    expect(await tracing.shutdown()).toBe(false);
  });

  it("makes each backend's load a client span under the step's load, its context in the call", async () => {
    const a = client('host-a:8001');
    const b = client('host-b:8001', true);
    const fleet = new KServeBackendFleet([a.client, b.client], catalog, 1000, 5000);
    const parent = startRemoteChildSpan('rollout.load', undefined);
    await expect(fleet.serve('qt', [1, 2], undefined, parent)).rejects.toThrow('host-b:8001');
    parent.end();

    const spans = await tracing.spans();
    const [root] = spans.filter((s) => s.name === 'rollout.load');
    const calls = childrenOf(spans, root!);
    expect(calls.map((s) => s.attributes['server.address']).sort()).toEqual([
      'host-a:8001',
      'host-b:8001',
    ]);
    for (const s of calls) {
      expect(s.name).toBe('inference.GRPCInferenceService/RepositoryModelLoad');
      expect(s.attributes).toMatchObject({ 'mesh.model': 'qt', 'mesh.versions': '1,2' });
    }
    const ok = calls.find((s) => s.attributes['server.address'] === 'host-a:8001')!;
    const failed = calls.find((s) => s.attributes['server.address'] === 'host-b:8001')!;
    expect(ok.attributes['mesh.outcome']).toBe('ok');
    expect(failed.status.code).toBe(SpanStatusCode.ERROR);
    expect(failed.attributes['rpc.grpc.status_code']).toBe(14);
    const { traceId, spanId } = ok.spanContext();
    expect(a.calls[0]?.metadata).toEqual({ traceparent: `00-${traceId}-${spanId}-01` });
  });

  it('sends the warm-up span as the traceparent of every warm-up inference', async () => {
    const a = client('host-a:8001');
    const warm = startRemoteChildSpan('rollout.warm', undefined);
    const result = await new KServeWarmer([a.client], catalog, 1000).warm(
      'qt',
      2,
      2,
      traceparentOf(warm),
    );
    warm.end();
    expect(result).toEqual({ ok: 2, failed: 0 });
    expect(a.calls.map((o) => o.metadata)).toEqual([
      { traceparent: traceparentOf(warm) },
      { traceparent: traceparentOf(warm) },
    ]);
  });
});

describe('KServe fleet calls, untraced', () => {
  it('sends no trace metadata and makes no span', async () => {
    expect(tracingEnabled()).toBe(false);
    const a = client('host-a:8001');
    await new KServeBackendFleet([a.client], catalog, 1000, 5000).serve('qt', [1, 2]);
    await new KServeWarmer([a.client], catalog, 1000).warm('qt', 2, 1);
    expect(a.calls.map((o) => o.metadata)).toEqual([undefined, undefined]);
  });
});
