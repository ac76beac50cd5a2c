import {
  RawKServeClient,
  bertRequest,
  ensureTinyModels,
  makeRepository,
  pendingRequests,
  tokenRow,
} from './support/model-host-fixtures';
import { runToExit, startApp } from './support/app-process';
import { pollUntil } from './support/poll';

interface StreamAnswer {
  error_message: string;
  infer_response: { outputs: { shape: number[] }[] };
}

// Real processes and real ORT sessions: allow for a busy 2-core machine.
jest.setTimeout(60_000);

describe('model host process', () => {
  let repo: ReturnType<typeof makeRepository>;

  beforeAll(() => {
    ensureTinyModels();
    repo = makeRepository({ sentiment: { from: 'sentiment-en' } });
  });

  afterAll(() => repo?.remove());

  const startHost = () =>
    startApp(
      'model-host',
      {
        MODEL_REPOSITORY: repo.dir,
        MODEL_HOST_HTTP_PORT: '0',
        MODEL_HOST_GRPC_PORT: '0',
        MODEL_HOST_METRICS_PORT: '0',
      },
      { listeners: ['http', 'grpc', 'metrics'] },
    );

  it('keeps answering health probes while a long inference runs in a worker thread', async () => {
    const host = await startHost();
    const client = new RawKServeClient(host.urls.grpc!);
    try {
      // Long by construction: several full-size batches queue behind one instance, so the host
      // stays busy for many inferences however fast the CPU is.
      let pending = true;
      const long = Promise.all(
        Array.from({ length: 4 }, () =>
          client.call(
            'ModelInfer',
            bertRequest(
              'sentiment',
              Array.from({ length: 64 }, (_, i) => tokenRow(384, i)),
            ),
          ),
        ),
      ).finally(() => (pending = false));
      await pollUntil(
        async () =>
          (await pendingRequests(host.urls.metrics!, 'sentiment')) > 0 ? true : undefined,
        { what: 'the long inference to be in flight', intervalMs: 5 },
      );
      // Probes answered while inference is still pending prove the event loop is free: were
      // inference on it, every probe would wait for the whole queue to drain.
      let answeredWhilePending = 0;
      while (pending && answeredWhilePending < 5) {
        const res = await fetch(`${host.urls.http}/healthz/live`);
        expect(res.status).toBe(200);
        if (pending) answeredWhilePending += 1;
      }
      await long;
      expect(answeredWhilePending).toBe(5);
    } finally {
      client.close();
      await host.stop('SIGKILL');
    }
  });

  it('stops with exit code 0 on SIGTERM after finishing in-flight requests', async () => {
    const host = await startHost();
    const client = new RawKServeClient(host.urls.grpc!);
    try {
      const inFlight = Array.from({ length: 3 }, (_, n) =>
        client.call(
          'ModelInfer',
          bertRequest(
            'sentiment',
            Array.from({ length: 32 }, (_, i) => tokenRow(256, n * 32 + i)),
          ),
        ),
      );
      await pollUntil(
        async () =>
          (await pendingRequests(host.urls.metrics!, 'sentiment')) > 0 ? true : undefined,
        { what: 'requests in flight before SIGTERM', intervalMs: 5 },
      );
      const code = host.stop('SIGTERM');
      const answers = await Promise.all(inFlight);
      for (const res of answers) expect(res.outputs[0].shape).toEqual([32, 3]);
      await expect(code).resolves.toBe(0);
    } finally {
      client.close();
    }
  });

  it('ends an open ModelStreamInfer call on SIGTERM once it has answered what it holds', async () => {
    const host = await startHost();
    const client = new RawKServeClient(host.urls.grpc!);
    try {
      // A router keeps such a stream open for good; the host must not wait for it to close.
      const call = client.inference.ModelStreamInfer();
      const answers: StreamAnswer[] = [];
      const status = new Promise<{ code: number }>((resolve) => {
        call.on('status', resolve);
      });
      call.on('data', (m: StreamAnswer) => answers.push(m));
      call.on('error', () => undefined);
      const rows = Array.from({ length: 32 }, (_, i) => tokenRow(256, i));
      call.write(bertRequest('sentiment', rows, { id: 'held' }));
      await pollUntil(
        async () =>
          (await pendingRequests(host.urls.metrics!, 'sentiment')) > 0 ? true : undefined,
        { what: 'the streamed request in flight before SIGTERM', intervalMs: 5 },
      );
      const code = host.stop('SIGTERM');
      // OK, not CANCELLED / UNAVAILABLE: the host ended the stream itself after answering.
      expect((await status).code).toBe(0);
      expect(answers).toHaveLength(1);
      expect(answers[0]!.error_message).toBe('');
      expect(answers[0]!.infer_response.outputs[0]!.shape).toEqual([32, 3]);
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
