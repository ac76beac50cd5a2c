/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-return -- wire JSON is untyped by nature */
import { uniquePrefix } from './support/app-process';
import { dropPrefix } from './support/redis-prefix';
import { ACME_KEY, call, metricSum, startMesh, type Mesh } from './support/router-mesh';

jest.setTimeout(90_000);

const prefix = uniquePrefix(__filename);
/** Short texts of one 16-token length bucket, so concurrent ones may share a call. */
const TEXTS = Array.from({ length: 24 }, (_, i) => `帮我查一下订单${i}的物流状态`);

let mesh: Mesh;

beforeAll(async () => {
  // One call per version in flight: every predict that arrives meanwhile waits to be merged.
  // 16-token buckets (the default is 4), so texts of different lengths share calls and padding.
  mesh = await startMesh(prefix, {
    routerEnv: {
      ROUTER_COALESCE: 'on',
      ROUTER_COALESCE_IN_FLIGHT: '1',
      ROUTER_COALESCE_BUCKET: '16',
    },
  });
}, 120_000);

afterAll(async () => {
  await mesh?.stop();
  // The router's heartbeats and traffic signals, written until it stopped.
  await dropPrefix(prefix);
});

const predict = (text: string, task = 'intent') =>
  call(mesh.http, 'POST', '/v1/predict', { key: ACME_KEY, body: { task, text } });

/** Requests, items and executions the host counted for intent-zh v2. */
async function hostStats(): Promise<{ requests: number; items: number; executions: number }> {
  const res = await fetch(`${mesh.host.urls.http}/v2/models/intent-zh/versions/2/stats`);
  const s = ((await res.json()) as any).model_stats[0];
  return {
    requests: Number(s.inference_stats.success.count),
    items: Number(s.inference_count),
    executions: Number(s.execution_count),
  };
}

describe('router request coalescing (router + model host over the wire)', () => {
  it('answers concurrent predicts exactly as sequential ones, in fewer backend calls', async () => {
    const sequential: any[] = [];
    for (const text of TEXTS) {
      const r = await predict(text);
      expect(r.status).toBe(200);
      sequential.push(r.body);
    }
    const before = await hostStats();
    const metricsBefore = await (await fetch(`${mesh.http}/metrics`)).text();

    const concurrent = await Promise.all(TEXTS.map((t) => predict(t)));

    expect(concurrent.map((r) => r.status)).toEqual(TEXTS.map(() => 200));
    const strip = ({ latencyMs: _, ...rest }: any) => rest;
    expect(concurrent.map((r) => strip(r.body))).toEqual(sequential.map(strip));

    const after = await hostStats();
    expect(after.items - before.items).toBe(TEXTS.length);
    // The host received fewer requests than the router did: the router merged them.
    expect(after.requests - before.requests).toBeLessThan(TEXTS.length);
    expect(after.executions - before.executions).toBeLessThan(TEXTS.length);

    const metricsAfter = await (await fetch(`${mesh.http}/metrics`)).text();
    const labels = { model: 'intent-zh', version: '2' };
    const carried =
      metricSum(metricsAfter, 'mesh_router_coalesced_requests_sum', labels) -
      metricSum(metricsBefore, 'mesh_router_coalesced_requests_sum', labels);
    const calls =
      metricSum(metricsAfter, 'mesh_router_coalesced_requests_count', labels) -
      metricSum(metricsBefore, 'mesh_router_coalesced_requests_count', labels);
    expect(carried).toBe(TEXTS.length);
    expect(calls).toBe(after.requests - before.requests);
  });

  it('keeps per-request answers for texts of different length buckets sent together', async () => {
    const texts = TEXTS.slice(0, 6).map((t, i) => (i % 2 === 0 ? t : t.repeat(4)));
    const sequential: any[] = [];
    for (const text of texts) sequential.push((await predict(text)).body);
    const concurrent = await Promise.all(texts.map((t) => predict(t)));
    const strip = ({ latencyMs: _, ...rest }: any) => rest;
    expect(concurrent.map((r) => strip(r.body))).toEqual(sequential.map(strip));
  });

  it('cuts embeddings of merged texts back to each text’s own length', async () => {
    // Lengths 2-6 tokens apart inside one 16-token bucket: the shorter ones are padded when
    // merged, and their pooled vectors must not change.
    const texts = ['订单', '订单物流', '订单物流状态查询', '帮我查一下订单', '你好', '谢谢你们'];
    const embed = (t: string) => predict(t, 'embed');
    const sequential: any[] = [];
    for (const t of texts) sequential.push((await embed(t)).body);
    const concurrent = await Promise.all(texts.map(embed));
    const strip = ({ latencyMs: _, ...rest }: any) => rest;
    expect(concurrent.map((r) => r.status)).toEqual(texts.map(() => 200));
    expect(concurrent.map((r) => strip(r.body))).toEqual(sequential.map(strip));
  });
});
