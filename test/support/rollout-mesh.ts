import { createHash } from 'node:crypto';
import { cpSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEMO_MODELS } from '../../scripts/models/demo-catalog';
import { ModelRepositoryWriter } from '../../scripts/models/model-repository.writer';
import { readWordListFile, WORD_LIST_PATH } from '../../scripts/models/word-list';
import { call } from './router-mesh';
import { ROOT, startApp, type StartedApp } from './app-process';
import { pollUntil } from './poll';

/**
 * Support for the rollout end-to-end suite: a model repository with good and bad versions of
 * one model, hosts on fixed gRPC ports (so one can restart where the fleet expects it), routers,
 * coordinators, and a load generator that records every answer.
 */

export const MODEL = 'question-type-zh';
export const TASK = 'question-type';
/** Versions 1 and 2 are the demo's; 3 fails every inference; 4 is another good one. */
export const BAD_VERSION = 3;
export const GOOD_VERSION = 4;
export const TENANT_KEY = 'rollout-e2e-tenant-key';
export const ADMIN = 'rollout-e2e-admin-key';
const DEMO = DEMO_MODELS.find((m) => m.name === MODEL)!;
/** The model's declared labels (every version shares them). */
export const LABELS: readonly string[] =
  DEMO.output.kind === 'classification' ? DEMO.output.labels : [];

/**
 * Writes `question-type-zh` with versions 1–4 into `dir` (1 and 2 copied from the demo
 * repository, so only 3 and 4 are built) and a routing seed: every request of the task on
 * version 1. Returns the seed's path.
 */
export async function writeRolloutRepository(dir: string): Promise<string> {
  for (const v of DEMO.versions) {
    cpSync(
      join(ROOT, 'model_repository', MODEL, String(v.version)),
      join(dir, MODEL, String(v.version)),
      {
        recursive: true,
      },
    );
  }
  const v2 = DEMO.versions.find((v) => v.version === 2)!;
  const model = {
    ...DEMO,
    versions: [
      ...DEMO.versions,
      { ...v2, version: BAD_VERSION, fault: 'run' as const },
      { ...v2, version: GOOD_VERSION },
    ],
  };
  const writer = new ModelRepositoryWriter({
    outDir: dir,
    size: 'tiny',
    vocab: readWordListFile(WORD_LIST_PATH),
    models: [model],
  });
  await writer.generate(false);
  const seed = join(dir, 'mesh.yaml');
  writeFileSync(
    seed,
    `tenants:
  - name: rollout
    keySha256: ['${createHash('sha256').update(TENANT_KEY).digest('hex')}']
    allowedTasks: [${TASK}]
    rateLimit: { requestsPerSecond: 100000, burst: 100000 }
    maxInFlight: 512
routes:
  - tenant: '*'
    task: ${TASK}
    model: ${MODEL}
    versions: [{ version: 1, weight: 100 }]
`,
  );
  return seed;
}

export { freePort } from './free-port';

/**
 * A model host in explicit mode (as Triton runs in production), loading the model at startup
 * unless `loadAtStartup` is false (then it serves nothing until someone loads it).
 */
export function startHost(
  repo: string,
  grpcPort: number,
  loadAtStartup = true,
  env: Record<string, string> = {},
): Promise<StartedApp> {
  return startApp(
    'model-host',
    {
      MODEL_HOST_HTTP_PORT: '0',
      MODEL_HOST_GRPC_PORT: String(grpcPort),
      MODEL_HOST_METRICS_PORT: '0',
      MODEL_REPOSITORY: repo,
      ...env,
    },
    {
      listeners: ['http', 'grpc', 'metrics'],
      args: ['--model-control-mode=explicit', ...(loadAtStartup ? [`--load-model=${MODEL}`] : [])],
      timeoutMs: 90_000,
    },
  );
}

export function startRouter(
  id: string,
  prefix: string,
  repo: string,
  seed: string,
  backends: string,
): Promise<StartedApp> {
  return startApp(
    'router',
    {
      ROUTER_HTTP_PORT: '0',
      ROUTER_GRPC_PORT: '0',
      ROUTER_ID: id,
      REDIS_KEY_PREFIX: prefix,
      MODEL_REPOSITORY: repo,
      KSERVE_ENDPOINTS: backends,
      MESH_CONFIG: seed,
      ADMIN_API_KEY: ADMIN,
      KSERVE_HEALTH_INTERVAL_MS: '200',
      ROUTER_HEARTBEAT_INTERVAL_MS: '200',
      ROUTER_SIGNAL_FLUSH_MS: '200',
    },
    { listeners: ['http', 'grpc'], timeoutMs: 60_000 },
  );
}

/** `env` adds to or overrides the defaults (e.g. a shorter `COORDINATOR_LOAD_SAMPLE_MS`). */
export function startCoordinator(
  id: string,
  prefix: string,
  repo: string,
  backends: string,
  env: Record<string, string> = {},
): Promise<StartedApp> {
  return startApp('coordinator', {
    COORDINATOR_PORT: '0',
    COORDINATOR_ID: id,
    REDIS_KEY_PREFIX: prefix,
    ADMIN_API_KEY: ADMIN,
    MODEL_REPOSITORY: repo,
    KSERVE_ENDPOINTS: backends,
    COORDINATOR_TICK_MS: '200',
    COORDINATOR_LEASE_MS: '2000',
    COORDINATOR_RECONCILE_MS: '500',
    COORDINATOR_LOAD_TIMEOUT_MS: '120000',
    ...env,
  });
}

export interface RolloutView {
  id: string;
  state: string;
  step: number;
  weights: { version: number; weight: number }[];
  finalWeights?: { version: number; weight: number }[];
  undoOf?: string;
  undoneBy?: string;
  timeline: {
    from: string;
    to: string;
    step: number;
    reason: string;
    metrics?: Record<string, unknown>;
  }[];
}

export async function createRollout(coordinator: string, plan: object): Promise<RolloutView> {
  const r = await call<RolloutView>(coordinator, 'POST', '/v1/rollouts', {
    key: ADMIN,
    body: plan,
  });
  if (r.status !== 201) throw new Error(`create rollout: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

export async function getRollout(coordinator: string, id: string): Promise<RolloutView> {
  const r = await call<RolloutView>(coordinator, 'GET', `/v1/rollouts/${id}`, { key: ADMIN });
  if (r.status !== 200) throw new Error(`get rollout: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

/** Polls the rollout until `done` holds; a terminal state that is not wanted fails at once. */
export function waitForRollout(
  coordinator: () => string,
  id: string,
  done: (v: RolloutView) => boolean,
  what: string,
  timeoutMs = 120_000,
): Promise<RolloutView> {
  return pollUntil(
    async () => {
      const view = await getRollout(coordinator(), id);
      if (done(view)) return view;
      if (['completed', 'rolled_back', 'aborted', 'failed'].includes(view.state)) {
        throw new Error(
          `rollout ended ${view.state} while waiting for ${what}: ${JSON.stringify(view.timeline)}`,
        );
      }
      return undefined;
    },
    { timeoutMs, intervalMs: 50, what },
  ).catch(async (err: Error) => {
    const view = await getRollout(coordinator(), id).catch(() => undefined);
    throw new Error(`${err.message}\n${JSON.stringify(view, null, 1)}`);
  });
}

/**
 * Polls the rollout every `intervalMs` for `polls` rounds and fails as soon as it is in another
 * state than `state`: the evidence that it stays put across many coordinator ticks. Returns the
 * last view. Counts polls rather than measuring time, so a slow machine only makes it longer.
 */
export async function expectStaysIn(
  coordinator: string,
  id: string,
  state: string,
  { polls = 20, intervalMs = 150 } = {},
): Promise<RolloutView> {
  for (let i = 0; ; i++) {
    const view = await getRollout(coordinator, id);
    if (view.state !== state) {
      throw new Error(`rollout left ${state} for ${view.state}: ${JSON.stringify(view.timeline)}`);
    }
    if (i >= polls) return view;
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

export interface Answer {
  /** predict answers carry the label; tokenize answers name the pipeline that encoded. */
  path: '/v1/predict' | '/v1/tokenize';
  status: number;
  model?: string;
  version?: number;
  pipeline?: string;
  label?: string;
  code?: string;
}

/** Loads started and not yet stopped (see stopLoads). */
const loads = new Set<{ stop: () => Promise<Answer[]> }>();

/**
 * Stops every load still running. A test that fails before stopping its own load would leave
 * it sending requests forever, and Jest (in band on a 2-core machine) would never exit: specs
 * that start loads call this after each test.
 */
export async function stopLoads(): Promise<void> {
  await Promise.all([...loads].map((l) => l.stop()));
}

/**
 * `clients` concurrent callers, each alternating between the routers, until `stop()`; every
 * answer is kept. Every third call is a tokenize (same route, same version choice), whose
 * answer names the pipeline. A transport error counts as status 0.
 */
export function startLoad(routers: () => string[], clients = 4) {
  const answers: Answer[] = [];
  let running = true;
  const texts = ['为什么天空是蓝色的', '怎么去火车站', '明天几点开会', '这是什么意思'];
  const worker = async (w: number) => {
    for (let i = 0; running; i++) {
      const urls = routers();
      const base = urls[(w + i) % urls.length]!;
      const path = i % 3 === 2 ? '/v1/tokenize' : '/v1/predict';
      try {
        const r = await call(base, 'POST', path, {
          key: TENANT_KEY,
          body: { task: TASK, text: texts[i % texts.length] },
        });
        answers.push({
          path,
          status: r.status,
          model: r.body?.model,
          version: r.body?.version,
          pipeline: r.body?.pipeline,
          label: r.body?.label,
          code: r.body?.error?.code,
        });
      } catch {
        answers.push({ path, status: 0 });
      }
    }
  };
  const done = Promise.all(Array.from({ length: clients }, (_, w) => worker(w)));
  const load = {
    answers,
    async stop(): Promise<Answer[]> {
      running = false;
      loads.delete(load);
      await done;
      return answers;
    },
  };
  loads.add(load);
  return load;
}

/** The host's repository index entries of the model (HTTP, as an operator would ask). */
export interface IndexEntry {
  name: string;
  version: string;
  state: string;
  reason: string;
}

export async function repositoryIndex(host: StartedApp): Promise<IndexEntry[]> {
  const r = await call<IndexEntry[]>(host.urls.http!, 'POST', '/v2/repository/index', {
    body: {},
  });
  return r.body.filter((m) => m.name === MODEL);
}

export function stateOf(index: IndexEntry[], version: number): string {
  const entry = index.find((m) => m.version === String(version));
  return entry ? `${entry.state}${entry.reason ? `/${entry.reason}` : ''}` : 'absent';
}
