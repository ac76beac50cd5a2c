import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  buildSignalQueries,
  PrometheusTrafficSignalSource,
} from './prometheus-traffic-signal.source';

/** A local stand-in for Prometheus' HTTP API: answers by the query text, records what it got. */
class FakePrometheus {
  readonly received: { query: string; time: string }[] = [];
  answer: (query: string) => { status: number; body: unknown } = () => vector([]);
  private server?: Server;

  async start(): Promise<string> {
    const server = createServer((req, res) => {
      let raw = '';
      req.on('data', (c: Buffer) => (raw += c.toString()));
      req.on('end', () => {
        const form = new URLSearchParams(raw);
        const query = form.get('query') ?? '';
        this.received.push({ query, time: form.get('time') ?? '' });
        const { status, body } =
          req.url === '/api/v1/query' ? this.answer(query) : { status: 404, body: {} };
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      });
    });
    this.server = server;
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    await new Promise((r) => this.server?.close(r));
  }
}

function vector(result: { metric?: Record<string, string>; value: string }[]) {
  return {
    status: 200,
    body: {
      status: 'success',
      data: {
        resultType: 'vector',
        result: result.map((r) => ({ metric: r.metric ?? {}, value: [1800000010, r.value] })),
      },
    },
  };
}

const fake = new FakePrometheus();
let baseUrl: string;
beforeAll(async () => {
  baseUrl = await fake.start();
});
afterAll(() => fake.stop());

const q = {
  task: 'question-type',
  model: 'question-type-zh',
  version: 2,
  fromMs: 1_800_000_000_000,
  toMs: 1_800_000_060_000,
};

describe('PrometheusTrafficSignalSource (local fake Prometheus HTTP API)', () => {
  it('builds PromQL over the router series for the version and window', () => {
    const built = buildSignalQueries(q);
    const sel = 'task="question-type",model!="",model="question-type-zh",version="2"';
    expect(built.windowSeconds).toBe(60);
    expect(built.time).toBe(1_800_000_060);
    expect(built.requests).toBe(`sum(increase(mesh_router_requests_total{${sel}}[60s]))`);
    expect(built.errorsByClass).toBe(
      `sum by (outcome) (increase(mesh_router_requests_total{${sel},outcome!="ok"}[60s]))`,
    );
    expect(built.p99).toBe(
      `histogram_quantile(0.99, sum by (le) (increase(mesh_router_request_duration_seconds_bucket{${sel},outcome="ok"}[60s])))`,
    );
    const taskOnly = buildSignalQueries({ task: 'a"b', fromMs: 0, toMs: 1500 });
    expect(taskOnly.requests).toBe(
      'sum(increase(mesh_router_requests_total{task="a\\"b",model!=""}[2s]))',
    );
  });

  it('parses counts, errors by class and quantiles (seconds → ms)', async () => {
    fake.answer = (query) => {
      if (query.startsWith('sum(increase')) return vector([{ value: '120.0000001' }]);
      if (query.startsWith('sum by (outcome)'))
        return vector([
          { metric: { outcome: 'BACKEND_UNAVAILABLE' }, value: '4' },
          { metric: { outcome: 'BACKEND_TIMEOUT' }, value: '2' },
          { metric: { outcome: 'TEXT_TOO_LONG' }, value: '5' },
        ]);
      if (query.startsWith('histogram_quantile(0.5,')) return vector([{ value: '0.004' }]);
      return vector([{ value: '0.25' }]);
    };
    const s = await new PrometheusTrafficSignalSource({ baseUrl }).read(q);
    expect(s).toEqual({
      requests: 120,
      errors: 6,
      errorsByClass: { BACKEND_UNAVAILABLE: 4, BACKEND_TIMEOUT: 2, TEXT_TOO_LONG: 5 },
      errorRate: 6 / 120,
      ratePerSecond: 2,
      p50Ms: 4,
      p99Ms: 250,
    });
    const sent = fake.received.slice(-4);
    expect(sent.map((r) => r.time)).toEqual(Array(4).fill('1800000060'));
    expect(new Set(sent.map((r) => r.query))).toEqual(
      new Set(Object.values(buildSignalQueries(q)).filter((v) => typeof v === 'string')),
    );
  });

  it('no traffic: empty vectors and NaN quantiles become zeros and nulls', async () => {
    fake.answer = (query) =>
      query.startsWith('histogram_quantile') ? vector([{ value: 'NaN' }]) : vector([]);
    const s = await new PrometheusTrafficSignalSource({ baseUrl }).read(q);
    expect(s).toEqual({
      requests: 0,
      errors: 0,
      errorsByClass: {},
      errorRate: 0,
      ratePerSecond: 0,
      p50Ms: null,
      p99Ms: null,
    });
  });

  it('an error answer fails the read with Prometheus’ message and the query', async () => {
    fake.answer = () => ({
      status: 400,
      body: { status: 'error', errorType: 'bad_data', error: 'parse error at char 3' },
    });
    await expect(new PrometheusTrafficSignalSource({ baseUrl }).read(q)).rejects.toThrow(
      /prometheus query failed \(parse error at char 3\): .*mesh_router/,
    );
  });
});
