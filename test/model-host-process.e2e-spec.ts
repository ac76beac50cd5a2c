import {
  RawKServeClient,
  bertRequest,
  ensureTinyModels,
  makeRepository,
  tokenRow,
} from '../apps/model-host/test/e2e-fixtures';
import { runToExit, startApp } from './support/app-process';

// Real processes and real ORT sessions: allow for a busy 2-core machine.
jest.setTimeout(60_000);

describe('model host process', () => {
  let repo: ReturnType<typeof makeRepository>;

  beforeAll(() => {
    ensureTinyModels();
    repo = makeRepository({ sentiment: { from: 'sentiment-en' } });
  });

  afterAll(() => repo?.remove());

  it('keeps its event loop free while a long inference runs in a worker thread', async () => {
    const host = await startApp(
      'model-host',
      {
        MODEL_REPOSITORY: repo.dir,
        MODEL_HOST_HTTP_PORT: '0',
        MODEL_HOST_GRPC_PORT: '0',
        MODEL_HOST_METRICS_PORT: '0',
      },
      { listeners: ['http', 'grpc', 'metrics'] },
    );
    const client = new RawKServeClient(host.urls.grpc!);
    try {
      const started = Date.now();
      let finished = 0;
      const long = client
        .call(
          'ModelInfer',
          bertRequest(
            'sentiment',
            Array.from({ length: 64 }, (_, i) => tokenRow(384, i)),
          ),
        )
        .then(() => (finished = Date.now()));
      const probes: number[] = [];
      // Probe /healthz/live until the inference ends; each probe must come back quickly.
      while (finished === 0) {
        const t0 = performance.now();
        const res = await fetch(`${host.urls.http}/healthz/live`);
        probes.push(performance.now() - t0);
        expect(res.status).toBe(200);
        await new Promise((r) => setTimeout(r, 20));
      }
      await long;
      // The inference must really have been long for the probes to mean anything.
      expect(finished - started).toBeGreaterThan(1000);
      expect(probes.length).toBeGreaterThan(10);
      const sorted = [...probes].sort((a, b) => a - b);
      const p90 = sorted[Math.floor(sorted.length * 0.9)]!;
      expect(p90).toBeLessThan(100);
    } finally {
      client.close();
      await host.stop('SIGKILL');
    }
  });

  it('stops with exit code 0 on SIGTERM after finishing in-flight requests', async () => {
    const host = await startApp(
      'model-host',
      {
        MODEL_REPOSITORY: repo.dir,
        MODEL_HOST_HTTP_PORT: '0',
        MODEL_HOST_GRPC_PORT: '0',
        MODEL_HOST_METRICS_PORT: '0',
      },
      { listeners: ['http', 'grpc', 'metrics'] },
    );
    const client = new RawKServeClient(host.urls.grpc!);
    try {
      const inFlight = client.call(
        'ModelInfer',
        bertRequest(
          'sentiment',
          Array.from({ length: 32 }, (_, i) => tokenRow(128, i)),
        ),
      );
      await new Promise((r) => setTimeout(r, 100));
      const code = host.stop('SIGTERM');
      const res = await inFlight;
      expect(res.outputs[0].shape).toEqual([32, 3]);
      await expect(code).resolves.toBe(0);
    } finally {
      client.close();
    }
  });

  it('refuses to boot with bad configuration, listing every problem, exit non-zero', async () => {
    const { code, output } = await runToExit(
      'model-host',
      { MODEL_HOST_GRPC_PORT: '99999', ORT_GRAPH_OPTIMIZATION_LEVEL: 'max' },
      ['--model-control-mode=poll', '--bogus'],
    );
    expect(code).toBe(1);
    expect(output).toContain('MODEL_HOST_GRPC_PORT: must be between 0 and 65535 (got "99999")');
    expect(output).toContain('ORT_GRAPH_OPTIMIZATION_LEVEL');
    expect(output).toContain('MODEL_CONTROL_MODE');
    expect(output).toContain('--bogus: unknown flag');
  });
});
