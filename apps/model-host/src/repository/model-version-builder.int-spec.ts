import { execSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseModelConfig } from '@mesh/model-repository';
import { Registry } from 'prom-client';
import { HostMetrics } from '../core/host.metrics';
import type { ModelVersionRuntime } from '../core/model-version-runtime';
import { BuildMemoryMeter } from './build-memory-meter';
import { buildModelVersion, hostSessionDefaults, type NiceObserver } from './model-version-builder';
import { warmupInputs, type SessionDefaults } from './model-version-loader';

const ROOT = join(__dirname, '..', '..', '..', '..');
const DIR = join(ROOT, 'model_repository', 'sentiment-en');
const MODEL = join(DIR, '1', 'model.onnx');

/** The host's defaults on 2 cores: the config's one instance gets both as intra-op threads. */
const DEFAULTS: SessionDefaults = { ...hostSessionDefaults(2), spinBetweenRuns: true };

/** sentiment-en's own config (one instance, as Triton users write it), with extra parameters. */
function config(parameters: Record<string, string> = {}) {
  const text = [
    readFileSync(join(DIR, 'config.pbtxt'), 'utf8'),
    ...Object.entries(parameters).map(
      ([key, value]) => `parameters { key: "${key}" value { string_value: "${value}" } }`,
    ),
  ].join('\n');
  return parseModelConfig(text, 'sentiment-en/config.pbtxt');
}

async function build(
  defaults: SessionDefaults,
  parameters: Record<string, string> = {},
  onNice?: NiceObserver,
) {
  const registry = new Registry();
  const runtime = await buildModelVersion(
    config(parameters),
    MODEL,
    { model: 'sentiment-en', version: 1 },
    { defaults, metrics: new HostMetrics(registry), meter: new BuildMemoryMeter(), onNice },
  );
  return { runtime, registry };
}

/** Lone executions counted after one request that finds the version idle. */
async function loneAfterOneRequest(runtime: ModelVersionRuntime, registry: Registry) {
  const answer = await runtime.infer({
    id: 'r1',
    model: 'sentiment-en',
    version: '1',
    inputs: warmupInputs(runtime.spec),
    outputs: [],
    priority: 0,
    timeoutUs: 0,
  });
  expect(answer.outputs.map((o) => o.name)).toEqual(['logits']);
  const metric = await registry.getMetricsAsJSON();
  const lone = metric.find((m) => m.name === 'mesh_host_lone_executions_total');
  return (lone?.values ?? []).reduce((n, v) => n + v.value, 0);
}

describe('a single 2-thread instance and a lone-batch twin (real ORT sessions)', () => {
  jest.setTimeout(120_000);

  beforeAll(() => {
    if (!existsSync(MODEL)) execSync('npm run -s models', { cwd: ROOT, stdio: 'inherit' });
  });

  it('has no twin by default: one instance already has every core', async () => {
    const { runtime, registry } = await build(DEFAULTS);
    try {
      expect(runtime.spec.instances).toBe(1);
      expect(await loneAfterOneRequest(runtime, registry)).toBe(0);
    } finally {
      await runtime.drain();
    }
  });

  it('serves a request that finds the version idle on the twin lone_batch_threads asks for', async () => {
    for (const defaults of [DEFAULTS, { ...DEFAULTS, allowSpinning: false }]) {
      const { runtime, registry } = await build(defaults, { lone_batch_threads: '2' });
      try {
        expect(runtime.spec.instances).toBe(1);
        expect(await loneAfterOneRequest(runtime, registry)).toBe(1);
      } finally {
        await runtime.drain();
      }
    }
  });
});

describe('the pool threads of a version (real ORT sessions)', () => {
  jest.setTimeout(120_000);

  const onLinux = process.platform === 'linux' ? it : it.skip;

  onLinux(
    'start at poolThreadNice and are told to the build context, once per version',
    async () => {
      const seen: Parameters<NiceObserver>[0][] = [];
      const { runtime } = await build({ ...DEFAULTS, poolThreadNice: 12 }, {}, (n) => seen.push(n));
      try {
        expect(seen).toHaveLength(1);
        expect(seen[0]).toMatchObject({ model: 'sentiment-en', version: '1', pool: 12 });
        // Root gets its worker thread's value back; a process without CAP_SYS_NICE keeps 12.
        expect([0, 12]).toContain(seen[0]!.worker);
      } finally {
        await runtime.drain();
      }
    },
  );

  it('keep the host priority with poolThreadNice unset', async () => {
    const seen: Parameters<NiceObserver>[0][] = [];
    const { runtime } = await build(DEFAULTS, {}, (n) => seen.push(n));
    try {
      expect(seen).toEqual([{ model: 'sentiment-en', version: '1', pool: 0, worker: 0 }]);
    } finally {
      await runtime.drain();
    }
  });
});
