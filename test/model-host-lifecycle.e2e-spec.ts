import { status } from '@grpc/grpc-js';
import { mkdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  RawKServeClient,
  bertRequest,
  ensureTinyModels,
  makeRepository,
  pendingRequests,
  tokenRow,
  type Any,
} from './support/model-host-fixtures';
import { startApp, type StartedApp } from './support/app-process';
import { pollUntil } from './support/poll';

// Real processes and real ORT sessions: allow for a busy 2-core machine.
jest.setTimeout(60_000);

/** A request that keeps an instance busy for a good while on the tiny model. */
const longRequest = (model: string) =>
  bertRequest(
    model,
    Array.from({ length: 48 }, (_, i) => tokenRow(256, i)),
  );

describe('model host repository lifecycle (control mode explicit)', () => {
  let repo: ReturnType<typeof makeRepository>;
  let host: StartedApp;
  let client: RawKServeClient;

  const pending = (model: string): Promise<number> => pendingRequests(host.urls.metrics!, model);

  beforeAll(async () => {
    ensureTinyModels();
    repo = makeRepository({
      // Triton's default policy (latest 1), so a new version replaces the old one.
      sentiment: { from: 'sentiment-en', edit: (t) => t.replace(/version_policy: .*\n/, '') },
      intent: { from: 'intent-zh' },
    });
    host = await startApp(
      'model-host',
      { MODEL_HOST_HTTP_PORT: '0', MODEL_HOST_GRPC_PORT: '0', MODEL_HOST_METRICS_PORT: '0' },
      {
        listeners: ['http', 'grpc', 'metrics'],
        args: [
          `--model-repository=${repo.dir}`,
          '--model-control-mode=explicit',
          '--load-model=sentiment',
        ],
        timeoutMs: 45_000,
      },
    );
    client = new RawKServeClient(host.urls.grpc!);
  }, 60_000);

  afterAll(async () => {
    client?.close();
    await host?.stop('SIGKILL');
    repo?.remove();
  });

  it('loads only --load-model at start; the index lists the rest as not loaded', async () => {
    const { models } = await client.call('RepositoryIndex', {});
    expect(models).toEqual([
      { name: 'intent', version: '', state: '', reason: '' },
      { name: 'sentiment', version: '1', state: 'READY', reason: '' },
    ]);
    const err = await client.fail('ModelInfer', bertRequest('intent', [tokenRow(5, 1)]));
    expect(err.code).toBe(status.NOT_FOUND);
  });

  it('RepositoryModelLoad builds the model before it serves', async () => {
    await client.call('RepositoryModelLoad', { model_name: 'intent' });
    expect(await client.call('ModelReady', { name: 'intent', version: '1' })).toEqual({
      ready: true,
    });
    const res = await client.call('ModelInfer', bertRequest('intent', [tokenRow(5, 1)]));
    expect(res.outputs[0].shape).toEqual([1, 6]);
    const err = await client.fail('RepositoryModelLoad', { model_name: 'missing' });
    expect(err.code).toBe(status.NOT_FOUND);
  });

  it('a failed reload keeps the serving version and reports the reason', async () => {
    const cfg = join(repo.dir, 'sentiment', 'config.pbtxt');
    const good = readFileSync(cfg, 'utf8');
    writeFileSync(cfg, good.replace(/dims: \[ -1 \]/g, 'dims: [ -1, -1 ]'));
    try {
      const err = await client.fail('RepositoryModelLoad', { model_name: 'sentiment' });
      expect(err.code).toBe(status.INVALID_ARGUMENT);
      expect(err.details).toContain("input 'input_ids'");
      expect(err.details).toContain('[-1,-1,-1]');
      const res = await client.call('ModelInfer', bertRequest('sentiment', [tokenRow(5, 2)]));
      expect(res.model_version).toBe('1');
    } finally {
      writeFileSync(cfg, good);
    }
  });

  it('a reload with a new version switches to it while in-flight requests finish on the old', async () => {
    const v2 = join(repo.dir, 'sentiment', '2');
    mkdirSync(v2, { recursive: true });
    symlinkSync(
      realpathSync(join(repo.dir, 'sentiment', '1', 'model.onnx')),
      join(v2, 'model.onnx'),
    );
    const inFlight = client.call('ModelInfer', { ...longRequest('sentiment'), model_version: '1' });
    await pollUntil(async () => ((await pending('sentiment')) > 0 ? true : undefined), {
      what: 'a pending request',
    });
    await client.call('RepositoryModelLoad', { model_name: 'sentiment' });
    const done: Any = await inFlight;
    expect(done.model_version).toBe('1');
    expect(done.outputs[0].shape).toEqual([48, 3]);
    expect(
      (await client.call('ModelInfer', bertRequest('sentiment', [tokenRow(5, 3)]))).model_version,
    ).toBe('2');
    const old = await client.fail('ModelInfer', {
      ...bertRequest('sentiment', [tokenRow(5, 3)]),
      model_version: '1',
    });
    // As on Triton, the retired version stays known: UNAVAILABLE, listed as unloaded.
    expect(old.code).toBe(status.UNAVAILABLE);
    expect(old.details).toContain('unloaded');
    const { models } = await client.call('RepositoryIndex', {});
    expect(models.filter((m: Any) => m.name === 'sentiment')).toEqual([
      { name: 'sentiment', version: '1', state: 'UNAVAILABLE', reason: 'unloaded' },
      { name: 'sentiment', version: '2', state: 'READY', reason: '' },
    ]);
  });

  it('unload lets in-flight requests finish, then answers UNAVAILABLE', async () => {
    const inFlight = client.call('ModelInfer', longRequest('intent'));
    await pollUntil(async () => ((await pending('intent')) > 0 ? true : undefined), {
      what: 'a pending request',
    });
    await client.call('RepositoryModelUnload', { model_name: 'intent' });
    const done: Any = await inFlight;
    expect(done.outputs[0].shape).toEqual([48, 6]);
    const err = await client.fail('ModelInfer', bertRequest('intent', [tokenRow(5, 4)]));
    expect(err.code).toBe(status.UNAVAILABLE);
    expect(err.details).toContain('unloaded');
    expect(await client.call('ModelReady', { name: 'intent', version: '' })).toEqual({
      ready: false,
    });
    const { models } = await client.call('RepositoryIndex', {});
    expect(models).toContainEqual({
      name: 'intent',
      version: '1',
      state: 'UNAVAILABLE',
      reason: 'unloaded',
    });
  });

  it('loads and unloads over HTTP too', async () => {
    const http = host.urls.http!;
    expect(
      (await fetch(`${http}/v2/repository/models/intent/load`, { method: 'POST' })).status,
    ).toBe(200);
    expect((await fetch(`${http}/v2/models/intent/ready`)).status).toBe(200);
    expect(
      (await fetch(`${http}/v2/repository/models/intent/unload`, { method: 'POST' })).status,
    ).toBe(200);
    expect((await fetch(`${http}/v2/models/intent/ready`)).status).toBe(400);
    const missing = await fetch(`${http}/v2/repository/models/nope/load`, { method: 'POST' });
    expect(missing.status).toBe(404);
  });
});
