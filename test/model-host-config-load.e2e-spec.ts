import { status } from '@grpc/grpc-js';
import {
  RawKServeClient,
  bertRequest,
  ensureTinyModels,
  makeRepository,
  tokenRow,
  type Any,
} from './support/model-host-fixtures';
import { startApp, type StartedApp } from './support/app-process';

// Real processes and real ORT sessions: allow for a busy 2-core machine.
jest.setTimeout(90_000);

/**
 * Retiring and re-adding single versions with a load whose `config` parameter names the
 * versions to serve (Triton's repository extension), over raw HTTP and raw grpc-js.
 */
describe('model host: load with a config override', () => {
  let repo: ReturnType<typeof makeRepository>;
  let host: StartedApp;
  let client: RawKServeClient;
  let http: string;

  const infer = (version: string, seed: number): Promise<Any> =>
    client.call('ModelInfer', {
      ...bertRequest('intent', [tokenRow(6, seed)]),
      model_version: version,
    });
  const inferenceCount = async (version: string): Promise<number> => {
    const { model_stats } = await client.call('ModelStatistics', { name: 'intent', version });
    return Number((model_stats as Any[])[0]?.inference_count);
  };
  const index = async (): Promise<Any[]> =>
    ((await client.call('RepositoryIndex', {})).models as Any[]).filter((m) => m.name === 'intent');
  const httpLoad = (body: unknown): Promise<Response> =>
    fetch(`${http}/v2/repository/models/intent/load`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  beforeAll(async () => {
    ensureTinyModels();
    repo = makeRepository({ intent: { from: 'intent-zh', versions: [1, 2] } });
    host = await startApp(
      'model-host',
      { MODEL_HOST_HTTP_PORT: '0', MODEL_HOST_GRPC_PORT: '0', MODEL_HOST_METRICS_PORT: '0' },
      {
        listeners: ['http', 'grpc', 'metrics'],
        args: [
          `--model-repository=${repo.dir}`,
          '--model-control-mode=explicit',
          '--load-model=intent',
        ],
        timeoutMs: 60_000,
      },
    );
    client = new RawKServeClient(host.urls.grpc!);
    http = host.urls.http!;
  }, 90_000);

  afterAll(async () => {
    client?.close();
    await host?.stop('SIGKILL');
    repo?.remove();
  });

  it('serves both versions under the config.pbtxt policy (all)', async () => {
    expect(await index()).toEqual([
      { name: 'intent', version: '1', state: 'READY', reason: '' },
      { name: 'intent', version: '2', state: 'READY', reason: '' },
    ]);
    expect((await infer('1', 1)).model_version).toBe('1');
    expect((await infer('2', 2)).model_version).toBe('2');
  });

  it('an HTTP load naming version 2 retires version 1 while version 2 keeps serving its sessions', async () => {
    const before = await inferenceCount('2');
    expect(before).toBeGreaterThan(0);
    // Requests to version 2 race the load; every one of them is answered.
    const during = Array.from({ length: 6 }, (_, i) => infer('2', 10 + i));
    const res = await httpLoad({
      parameters: { config: JSON.stringify({ version_policy: { specific: { versions: [2] } } }) },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({});
    for (const r of await Promise.all(during)) expect(r.model_version).toBe('2');

    expect(await index()).toEqual([
      { name: 'intent', version: '1', state: 'UNAVAILABLE', reason: 'unloaded' },
      { name: 'intent', version: '2', state: 'READY', reason: '' },
    ]);
    const retired = await client.fail('ModelInfer', {
      ...bertRequest('intent', [tokenRow(6, 3)]),
      model_version: '1',
    });
    expect(retired.code).toBe(status.UNAVAILABLE);
    expect(retired.details).toContain('unloaded');
    expect((await fetch(`${http}/v2/models/intent/versions/1/ready`)).status).toBe(400);
    // The statistics carry on: the same runtime (same warm sessions) serves version 2.
    expect(await inferenceCount('2')).toBe(before + 6);
    const config = (await client.call('ModelConfig', { name: 'intent' })).config as Any;
    expect(config.version_policy).toEqual({
      specific: { versions: [2] },
      policy_choice: 'specific',
    });
    expect(config.max_batch_size).toBe(64);
  });

  it('a raw gRPC RepositoryModelLoad with config brings version 1 back beside the warm version 2', async () => {
    const count2 = await inferenceCount('2');
    await client.call('RepositoryModelLoad', {
      model_name: 'intent',
      parameters: {
        config: {
          string_param: JSON.stringify({ versionPolicy: { specific: { versions: ['1', '2'] } } }),
        },
      },
    });
    expect(await index()).toEqual([
      { name: 'intent', version: '1', state: 'READY', reason: '' },
      { name: 'intent', version: '2', state: 'READY', reason: '' },
    ]);
    expect((await infer('1', 4)).model_version).toBe('1');
    expect(await inferenceCount('1')).toBe(1);
    expect(await inferenceCount('2')).toBe(count2);
  });

  it('a load without config goes back to config.pbtxt (all versions), keeping both warm', async () => {
    const count1 = await inferenceCount('1');
    await client.call('RepositoryModelLoad', { model_name: 'intent' });
    expect(await inferenceCount('1')).toBe(count1);
    expect((await index()).map((m) => m.state as string)).toEqual(['READY', 'READY']);
  });

  it.each([
    [
      'a config that is not JSON',
      { parameters: { config: '{version_policy' } },
      "load parameter 'config' is not valid JSON",
    ],
    [
      'a field of the wrong type',
      { parameters: { config: '{"max_batch_size":"big"}' } },
      "expected an integer for 'max_batch_size'",
    ],
    [
      'a version with no directory',
      { parameters: { config: '{"version_policy":{"specific":{"versions":[7]}}}' } },
      "version_policy names version 7 of 'intent', which has no directory",
    ],
    [
      'another model name',
      { parameters: { config: '{"name":"other"}' } },
      "name 'other' does not match the model 'intent'",
    ],
    [
      'a model file override',
      { parameters: { 'file:1/model.onnx': 'AAAA' } },
      "load parameter 'file:1/model.onnx': model file overrides are not supported",
    ],
    [
      'an unknown parameter',
      { parameters: { colour: 'red' } },
      "unsupported load parameter 'colour'",
    ],
  ])('refuses %s with 400 naming it, and keeps serving', async (_what, body, message) => {
    const res = await httpLoad(body);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toContain(message);
    expect((await index()).map((m) => m.state as string)).toEqual(['READY', 'READY']);
  });

  it('refuses a bad config over gRPC with INVALID_ARGUMENT', async () => {
    const err = await client.fail('RepositoryModelLoad', {
      model_name: 'intent',
      parameters: {
        config: { string_param: '{"version_policy":{"latest":{"num_versions":"x"}}}' },
      },
    });
    expect(err.code).toBe(status.INVALID_ARGUMENT);
    expect(err.details).toContain("'version_policy.latest.num_versions'");
  });

  it('a full unload lists every version UNAVAILABLE / unloaded', async () => {
    await client.call('RepositoryModelUnload', { model_name: 'intent' });
    expect(await index()).toEqual([
      { name: 'intent', version: '1', state: 'UNAVAILABLE', reason: 'unloaded' },
      { name: 'intent', version: '2', state: 'UNAVAILABLE', reason: 'unloaded' },
    ]);
  });
});
