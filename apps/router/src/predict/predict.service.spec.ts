import {
  InputTooLargeError,
  InputValidationError,
  type EncodedBatch,
  type OutputTensor,
  type TextInput,
} from '@mesh/preprocessing';
import {
  TooManyInFlightError,
  WeightedVersionPicker,
  type Route,
  type RoutingTableCache,
  type Tenant,
} from '@mesh/routing';
import type { TrafficSignalRecorder } from '@mesh/signals';
import { InFlightLimiter, type TenantRateLimiter } from '@mesh/tenancy';
import { Registry } from 'prom-client';
import { VersionNotResidentError } from '@mesh/kserve';
import type {
  BackendDirectory,
  InferenceGateway,
  ServableVersion,
  VersionCatalog,
} from '@mesh/inference';
import { BatchTooLargeError, ModelLoadingError } from '../errors/router.errors';
import { AdmissionService } from '../tenancy/admission.service';
import type { CallContext } from './predict-commands';
import { PredictService } from './predict.service';
import { ResponseCacheRegistry } from './response-cache-registry';
import { RouteSelector } from '../catalog/route-selector';
import { RouterMetrics } from '../router.metrics';
import { ShadowMirror } from './shadow-mirror';
import { VersionTraffic } from '../signals/version-traffic';

const tenant: Tenant = {
  name: 'acme',
  keySha256: [],
  allowedTasks: ['*'],
  rateLimit: { requestsPerSecond: 10, burst: 10 },
  maxInFlight: 2,
};
const ctx: CallContext = {
  transport: 'http',
  authorization: undefined,
  requestId: 'r1',
  traceparent: undefined,
  stickyKey: undefined,
  receivedAt: 0,
};

/** A fake version whose "model" labels each text by its length, so answers are checkable. */
/** The texts of a fake encoded batch, each answered with its length. */
function lengthsOf(batch: unknown): OutputTensor {
  const texts = (batch as { texts: string[] }).texts;
  return { shape: [texts.length, 1], data: Float32Array.from(texts, (t) => t.length) };
}

/** Every tenant's route of task `t` to model `m`, all on version 1; `over` on top. */
function routeOf(over: Partial<Route> = {}): Route {
  return { tenant: '*', task: 't', model: 'm', versions: [{ version: 1, weight: 1 }], ...over };
}

function fakeVersion(
  kind: 'classification' | 'embedding' = 'classification',
  { version = 1, pairs = kind === 'classification' } = {},
): ServableVersion {
  return {
    model: 'm',
    version,
    pipeline: pairs ? 'bert-wordpiece@2' : 'bert-wordpiece@1',
    kind,
    pairs,
    labels: [],
    maxLength: 128,
    hardMaxChars: 10,
    maxBatchSize: 2,
    output: 'logits',
    modelSha256: 'x',
    encode: (items: readonly TextInput[]) =>
      ({ batchSize: items.length, texts: items.map((i) => i.text) }) as unknown as EncodedBatch,
    tokenize: () => {
      throw new Error('unused');
    },
    postprocess: (out: { data: Float32Array }) =>
      Array.from(out.data, (len) => ({
        kind: 'classification',
        label: `len${len}`,
        score: 1,
        scores: [],
      })),
  } as unknown as ServableVersion;
}

function setup(
  route: Partial<Route> = {},
  version = fakeVersion(),
  shadow?: ServableVersion,
  others: ServableVersion[] = [],
) {
  const registry = new Registry();
  const sent: string[][] = [];
  const priorities: string[] = [];
  let open: () => void = () => undefined;
  let gated = new Promise<void>((r) => (open = r));
  const gate = {
    open: () => open(),
    close: () => {
      gated = new Promise<void>((r) => (open = r));
    },
  };
  gate.open();
  const inference: InferenceGateway = {
    infer: async (v, batch, meta) => {
      priorities.push(`${v.version}@${meta.priority}`);
      await gated;
      // A cancelled backend call fails with CANCELLED, as grpc-js reports it.
      if (meta.signal?.aborted)
        throw Object.assign(new Error('cancelled'), { code: 'BACKEND_ERROR', grpcCode: 1 });
      sent.push((batch as unknown as { texts: string[] }).texts);
      return lengthsOf(batch);
    },
  };
  const fullRoute = routeOf({
    ...(shadow ? { shadow: { version: shadow.version } } : {}),
    ...route,
  });
  const all = [version, ...(shadow ? [shadow] : []), ...others];
  const catalog = {
    servable: (_m: string, v: number) => all.find((x) => x.version === v),
    problem: () => 'not in the repository',
  } as unknown as VersionCatalog;
  const routes = { resolve: () => ({ tenant, route: fullRoute }) } as unknown as RoutingTableCache;
  const backends = { unroutableReason: () => undefined } as unknown as BackendDirectory;
  const selector = new RouteSelector(routes, new WeightedVersionPicker(), catalog, backends);
  const inFlight = new InFlightLimiter();
  const limiter = { admit: async () => undefined } as unknown as TenantRateLimiter;
  const metrics = new RouterMetrics(registry);
  const service = new PredictService(
    new AdmissionService(limiter, inFlight),
    selector,
    inference,
    new ResponseCacheRegistry(100),
    metrics,
    new ShadowMirror(inference, metrics),
    () => 3,
  );
  return { service, sent, inFlight, registry, gate, priorities };
}

describe('PredictService', () => {
  it('answers a batch in input order, in calls of at most max_batch_size rows', async () => {
    const { service, sent } = setup();
    const r = await service.predictBatch(ctx, tenant, { task: 't', texts: ['aaa', 'a', 'aa'] });
    expect(r.results.map((p) => (p.kind === 'classification' ? p.label : ''))).toEqual([
      'len3',
      'len1',
      'len2',
    ]);
    expect(sent).toEqual([['aaa', 'a'], ['aa']]);
    expect(r).toMatchObject({ model: 'm', version: 1 });
  });

  it('serves cached answers without inference and sends only the misses', async () => {
    const { service, sent, registry } = setup({ cache: { enabled: true } });
    await service.predict(ctx, tenant, { task: 't', text: 'aa' });
    const r = await service.predictBatch(ctx, tenant, { task: 't', texts: ['b', 'aa', 'ccc'] });
    expect(sent).toEqual([['aa'], ['b', 'ccc']]);
    expect(r.results).toHaveLength(3);
    expect(r.results.map((p) => (p.kind === 'classification' ? p.label : ''))).toEqual([
      'len1',
      'len2',
      'len3',
    ]);
    const metrics = await registry.getSingleMetricAsString('mesh_router_cache_requests_total');
    expect(metrics).toContain('result="hit"} 1');
    expect(metrics).toContain('result="miss"} 3');
  });

  it('does not cache when the route does not ask for it', async () => {
    const { service, sent } = setup();
    await service.predict(ctx, tenant, { task: 't', text: 'aa' });
    await service.predict(ctx, tenant, { task: 't', text: 'aa' });
    expect(sent).toHaveLength(2);
  });

  it('refuses text over hardMaxChars before any inference, releasing the in-flight slot', async () => {
    const { service, sent, inFlight, registry } = setup();
    await expect(
      service.predict(ctx, tenant, { task: 't', text: 'x'.repeat(11) }),
    ).rejects.toBeInstanceOf(InputTooLargeError);
    expect(sent).toEqual([]);
    expect(inFlight.inFlight('acme')).toBe(0);
    expect(
      await registry.getSingleMetricAsString('mesh_router_request_duration_seconds'),
    ).toContain('outcome="TEXT_TOO_LONG"');
  });

  it('refuses a batch over its bound', async () => {
    const { service, sent } = setup();
    await expect(
      service.predictBatch(ctx, tenant, { task: 't', texts: ['a', 'b', 'c', 'd'] }),
    ).rejects.toBeInstanceOf(BatchTooLargeError);
    expect(sent).toEqual([]);
  });

  it('refuses a text pair on an embedding model', async () => {
    const { service } = setup({}, fakeVersion('embedding'));
    await expect(
      service.predict(ctx, tenant, { task: 't', text: 'a', textPair: 'b' }),
    ).rejects.toBeInstanceOf(InputValidationError);
  });

  it('counts characters as code points: 10 emoji fit hardMaxChars 10, 11 do not', async () => {
    const { service } = setup();
    await expect(
      service.predict(ctx, tenant, { task: 't', text: '😀'.repeat(10) }),
    ).resolves.toMatchObject({ version: 1 });
    await expect(
      service.predict(ctx, tenant, { task: 't', text: '😀'.repeat(11) }),
    ).rejects.toMatchObject({ code: 'TEXT_TOO_LONG', length: 11, limit: 10 });
  });

  it('routes a pair only among the versions that take pairs; 400 only when none does', async () => {
    const singleOnly = fakeVersion('classification', { version: 1, pairs: false });
    const pairs = fakeVersion('classification', { version: 2, pairs: true });
    const canary = {
      versions: [
        { version: 1, weight: 90 },
        { version: 2, weight: 10 },
      ],
    };
    const { service } = setup(canary, singleOnly, undefined, [pairs]);
    const versions = new Set<number>();
    for (let i = 0; i < 30; i++) {
      const r = await service.predict(ctx, tenant, { task: 't', text: '你好', textPair: '再见' });
      versions.add(r.version);
    }
    expect([...versions]).toEqual([2]);
    const onlySingle = setup({ versions: [{ version: 1, weight: 1 }] }, singleOnly);
    await expect(
      onlySingle.service.predict(ctx, tenant, { task: 't', text: 'a', textPair: 'b' }),
    ).rejects.toThrow('takes single texts only');
  });

  it('holds one in-flight slot per request while it runs and refuses beyond maxInFlight', async () => {
    const { service, inFlight, gate } = setup();
    gate.close();
    const a = service.predict(ctx, tenant, { task: 't', text: 'a' });
    const b = service.predict(ctx, tenant, { task: 't', text: 'b' });
    await new Promise((r) => setImmediate(r));
    expect(inFlight.inFlight('acme')).toBe(2);
    await expect(service.predict(ctx, tenant, { task: 't', text: 'c' })).rejects.toBeInstanceOf(
      TooManyInFlightError,
    );
    gate.open();
    await Promise.all([a, b]);
    expect(inFlight.inFlight('acme')).toBe(0);
  });

  it('mirrors to the shadow version at priority 2 after answering at priority 1', async () => {
    const shadow = { ...fakeVersion(), version: 2 } as ServableVersion;
    const { service, priorities, registry } = setup({}, fakeVersion(), shadow);
    const r = await service.predict(ctx, tenant, { task: 't', text: 'abc' });
    expect(r.version).toBe(1);
    await new Promise((res) => setImmediate(res));
    expect(priorities).toEqual(['1@1', '2@2']);
    const agree = await registry.getSingleMetricAsString('mesh_router_shadow_agreement_total');
    expect(agree).toContain('agree="true"} 1');
  });

  it('sends a multi-text batch at priority 2 and a single predict at priority 1', async () => {
    const { service, priorities } = setup();
    await service.predictBatch(ctx, tenant, { task: 't', texts: ['a', 'bb'] });
    await service.predict(ctx, tenant, { task: 't', text: 'c' });
    expect(priorities).toEqual(['1@2', '1@1']);
  });

  it("cancels the backend call with the caller's signal and counts a caller that left as CLIENT_CLOSED", async () => {
    const { service, gate, registry } = setup();
    gate.close();
    const gone = new AbortController();
    const call = service.predict({ ...ctx, signal: gone.signal }, tenant, { task: 't', text: 'a' });
    await new Promise((r) => setImmediate(r));
    gone.abort();
    gate.open();
    await expect(call).rejects.toMatchObject({ grpcCode: 1 });
    const requests = await registry.getSingleMetricAsString('mesh_router_request_duration_seconds');
    expect(requests).toContain('outcome="CLIENT_CLOSED"');
    expect(requests).not.toContain('outcome="BACKEND_UNAVAILABLE"');
  });
});

describe('PredictService cold starts', () => {
  function coldSetup(
    wait: (model: string, version: number) => Promise<void>,
    { residentAtFirst = false, unloadedBeforeCall = 0 } = {},
  ) {
    const registry = new Registry();
    const version = fakeVersion();
    let served = residentAtFirst;
    let unloads = unloadedBeforeCall;
    const samples: { outcome: string }[] = [];
    const traffic = new VersionTraffic({
      record: (s: { outcome: string }) => samples.push(s),
    } as unknown as TrafficSignalRecorder);
    const metrics = new RouterMetrics(registry, traffic);
    const inference: InferenceGateway = {
      infer: async (_v, batch) => {
        if (unloads-- > 0) {
          served = false;
          throw new VersionNotResidentError('none holds it now', { model: 'm', version: '1' });
        }
        return lengthsOf(batch);
      },
    };
    const route = routeOf();
    const catalog = {
      servable: (_m: string, v: number) => (v === 1 ? version : undefined),
      problem: () => 'not in the repository',
    } as unknown as VersionCatalog;
    const routes = { resolve: () => ({ tenant, route }) } as unknown as RoutingTableCache;
    const backends = {
      unroutableReason: () => (served ? undefined : 'no backend reports m v1 READY'),
    } as unknown as BackendDirectory;
    const selector = new RouteSelector(
      routes,
      new WeightedVersionPicker(),
      catalog,
      backends,
      () => !served,
    );
    const waits: string[] = [];
    const service = new PredictService(
      new AdmissionService(
        { admit: async () => undefined } as unknown as TenantRateLimiter,
        new InFlightLimiter(),
      ),
      selector,
      inference,
      new ResponseCacheRegistry(100),
      metrics,
      new ShadowMirror(inference, metrics),
      () => 3,
      undefined,
      {
        wait: async (m, v) => {
          waits.push(`${m}@${v}`);
          await wait(m, v);
          served = true;
        },
        waitAfterMiss: async (m, v) => {
          waits.push(`${m}@${v} after a miss`);
          await wait(m, v);
          served = true;
        },
      },
    );
    return { service, registry, samples, traffic, waits };
  }

  it('waits for a version resident nowhere, then answers from it', async () => {
    const { service, waits, samples } = coldSetup(async () => undefined);
    const r = await service.predict(ctx, tenant, { task: 't', text: 'abc' });
    expect(r).toMatchObject({ model: 'm', version: 1, prediction: { label: 'len3' } });
    expect(waits).toEqual(['m@1']);
    expect(samples.map((s) => s.outcome)).toEqual(['ok']);
    // The answer says it waited (present only after a cold start; warm answers lack it).
    expect(r.coldStartMs).toEqual(expect.any(Number));
  });

  it('answers MODEL_LOADING past the wait, not counted against the version', async () => {
    const { service, registry, samples, traffic } = coldSetup(async (m, v) => {
      throw new ModelLoadingError(m, v, 2);
    });
    await expect(service.predict(ctx, tenant, { task: 't', text: 'abc' })).rejects.toMatchObject({
      code: 'MODEL_LOADING',
      retryAfterSeconds: 2,
    });
    const requests = await registry.getSingleMetricAsString('mesh_router_request_duration_seconds');
    expect(requests).toContain('outcome="MODEL_LOADING"');
    expect(samples).toEqual([]);
    expect(traffic.inFlightNow()).toEqual([]);
  });

  it('waits once for a version unloaded between the pick and the call, then answers', async () => {
    const { service, waits, samples } = coldSetup(async () => undefined, {
      residentAtFirst: true,
      unloadedBeforeCall: 1,
    });
    const r = await service.predict(ctx, tenant, { task: 't', text: 'abc' });
    expect(r.prediction).toMatchObject({ label: 'len3' });
    expect(waits).toEqual(['m@1 after a miss']);
    expect(r.coldStartMs).toEqual(expect.any(Number));
    expect(samples.map((s) => s.outcome)).toEqual(['ok']);
  });

  it('does not wait twice: unloaded again after its load, the request fails', async () => {
    const { service, waits } = coldSetup(async () => undefined, {
      residentAtFirst: true,
      unloadedBeforeCall: 2,
    });
    await expect(service.predict(ctx, tenant, { task: 't', text: 'abc' })).rejects.toBeInstanceOf(
      VersionNotResidentError,
    );
    expect(waits).toEqual(['m@1 after a miss']);
  });

  it('does not wait for a version that is not cold', async () => {
    const { service, waits } = coldSetup(async () => undefined);
    await service.predict(ctx, tenant, { task: 't', text: 'a' });
    const warm = await service.predict(ctx, tenant, { task: 't', text: 'b' });
    expect(waits).toEqual(['m@1']);
    expect(warm.coldStartMs).toBeUndefined();
  });
});
