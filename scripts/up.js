#!/usr/bin/env node
// `npm run up`: installs what is missing, generates the demo models, finds or starts Redis,
// builds, then runs model-host, router, batch-worker and coordinator as processes with
// prefixed logs, prints their URLs, and stops them all on Ctrl-C.
// `npm run up -- --fresh` first returns Redis to the seeded demo (`npm run mesh -- reset --yes`).
'use strict';
const { spawn } = require('node:child_process');
const { existsSync, readFileSync } = require('node:fs');
const { join } = require('node:path');
const { parseArgs } = require('node:util');
const { formatLogLine } = require('./lib/log-line');
const setup = require('./lib/setup');
// The node flags every mesh app runs with (ADR 0021).
const MESH_NODE_FLAGS = require('./lib/mesh-node-flags.json');

const COLORS = { 'model-host': 36, router: 32, 'batch-worker': 35, coordinator: 33, redis: 90 };
const APPS = ['model-host', 'router', 'batch-worker', 'coordinator'];

const children = new Map();
let stopping = false;

/** URLs per app and listener, from the apps' `listening` log events (so port 0 works too). */
const urls = {};
/** Redis key prefix per app, from their `redis` startup events. */
const keyPrefixes = {};

function prefixed(name, line) {
  const { text, event: e } = formatLogLine(line, { logLevel: process.env.LOG_LEVEL || 'info' });
  if (e && e.event === 'listening') (urls[name] ??= {})[e.listener] = e.url;
  if (e && e.event === 'redis') keyPrefixes[name] = e.keyPrefix;
  if (text === undefined) return;
  const color = process.stdout.isTTY ? `\x1b[${COLORS[name] || 0}m` : '';
  const reset = process.stdout.isTTY ? '\x1b[0m' : '';
  process.stdout.write(`${color}${name.padEnd(12)}|${reset} ${text}\n`);
}

function startApp(name, env) {
  const main = join(setup.ROOT, 'dist', 'apps', name, 'src', 'main.js');
  const proc = spawn(process.execPath, [...MESH_NODE_FLAGS, main], {
    cwd: setup.ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  for (const stream of [proc.stdout, proc.stderr]) {
    let buf = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk) => {
      buf += chunk;
      let i;
      while ((i = buf.indexOf('\n')) >= 0) {
        prefixed(name, buf.slice(0, i));
        buf = buf.slice(i + 1);
      }
    });
  }
  proc.on('exit', (code, signal) => {
    children.delete(name);
    if (!stopping) {
      prefixed(name, `exited (${signal || code}); stopping the mesh`);
      void stopAll(1);
    }
  });
  children.set(name, proc);
  return proc;
}

/** Waits for the app's HTTP listener, then for `/healthz/ready` to answer 200. */
async function waitReady(name, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const base = urls[name] && urls[name].http;
    try {
      if (base && (await fetch(`${base}/healthz/ready`)).status === 200) return true;
    } catch {
      // not listening yet
    }
    if (stopping) return false;
    await new Promise((r) => setTimeout(r, 250));
  }
  return false;
}

async function stopAll(code) {
  if (stopping) return;
  stopping = true;
  console.log('\nstopping…');
  const exits = [...children.values()].map(
    (p) => new Promise((resolve) => (p.exitCode !== null ? resolve() : p.once('exit', resolve))),
  );
  for (const p of children.values()) p.kill('SIGTERM');
  const timer = setTimeout(() => {
    for (const p of children.values()) p.kill('SIGKILL');
  }, 15_000);
  await Promise.all(exits);
  clearTimeout(timer);
  process.exit(code);
}

/** Demo tenants and their plaintext keys, from the comment block at the top of mesh.yaml. */
function demoKeys() {
  const file = process.env.MESH_CONFIG || join(setup.ROOT, 'deploy', 'config', 'mesh.yaml');
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .map((l) => /^#\s+([a-z][\w-]*)\s+(\S+-key)\s+[0-9a-f]{64}\s*$/.exec(l))
    .filter(Boolean)
    .map((m) => `tenant ${m[1].padEnd(7)} Authorization: Bearer ${m[2]}`);
}

/** The key prefix the apps announced: one value normally, each app's if they differ. */
function redisPrefixes() {
  const distinct = [...new Set(Object.values(keyPrefixes))];
  if (distinct.length <= 1)
    return distinct[0] === undefined ? '(not announced)' : `"${distinct[0]}"`;
  return Object.entries(keyPrefixes)
    .map(([app, p]) => `${app} "${p}"`)
    .join(', ');
}

function grpcAddress(url) {
  return url.replace(/^grpc:\/\//, '');
}

/**
 * `--fresh`: `npm run mesh -- reset --yes` against the Redis and key prefix the apps will use
 * (it refuses a Redis off this machine or a MESH_CONFIG other than the demo's).
 */
/** `cluster <nodes>` or `sentinel <master> via <sentinels>` when the environment names one. */
function namedRedis() {
  const { REDIS_CLUSTER_NODES: nodes, REDIS_SENTINELS: sentinels } = process.env;
  if (nodes) return `cluster ${nodes}`;
  if (sentinels)
    return `sentinel ${process.env.REDIS_SENTINEL_MASTER || '(no master name)'} via ${sentinels}`;
  return undefined;
}

function resetToSeed(redisUrl) {
  console.log('> resetting to the seeded demo (--fresh): npm run mesh -- reset --yes');
  const args = [join(setup.ROOT, 'scripts', 'run-ts.js'), join(setup.ROOT, 'scripts', 'mesh.ts')];
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [...args, 'reset', '--yes'], {
      cwd: setup.ROOT,
      env: { ...process.env, ...(redisUrl ? { REDIS_URL: redisUrl } : {}) },
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    proc.on('error', reject);
    proc.on('exit', (code, signal) =>
      code === 0 ? resolve() : reject(new Error(`--fresh: the reset failed (${signal || code})`)),
    );
  });
}

async function main() {
  const { values: flags } = parseArgs({
    args: process.argv.slice(2),
    options: { fresh: { type: 'boolean', default: false } },
  });
  if (process.env.MESH_UP_SKIP_SETUP !== '1') {
    setup.ensureInstalled();
    setup.ensureModels();
  }
  // A Redis Cluster or Sentinel named in the environment is used as it is (the apps read the
  // same variables); otherwise REDIS_URL, or a local redis-server started when none answers.
  const named = namedRedis();
  const { url: redisUrl, proc: redis } = named ? {} : await setup.ensureRedis();
  if (redis) children.set('redis', redis);
  if (process.env.MESH_UP_SKIP_SETUP !== '1') setup.build();
  if (flags.fresh) await resetToSeed(redisUrl);
  const adminKey = process.env.ADMIN_API_KEY || 'mesh-admin-demo-key';
  const env = { ...(redisUrl ? { REDIS_URL: redisUrl } : {}), ADMIN_API_KEY: adminKey };
  process.on('SIGINT', () => void stopAll(0));
  process.on('SIGTERM', () => void stopAll(0));

  // The host comes first: the router and worker are pointed at its gRPC port. It runs in
  // explicit mode with every demo model loaded, as production Triton does, so the
  // coordinator's repository loads and unloads behave locally as they do there.
  // A fixed mmap threshold lets unloaded sessions' memory go back to the OS (docs/placement.md).
  startApp('model-host', {
    ...env,
    MODEL_CONTROL_MODE: 'explicit',
    LOAD_MODELS: '*',
    MALLOC_MMAP_THRESHOLD_: process.env.MALLOC_MMAP_THRESHOLD_ || '131072',
  });
  if (!(await waitReady('model-host'))) throw new Error('model-host did not become ready');
  if (!process.env.KSERVE_ENDPOINTS && urls['model-host'].grpc) {
    env.KSERVE_ENDPOINTS = grpcAddress(urls['model-host'].grpc);
  }
  for (const app of APPS.slice(1)) startApp(app, env);
  const ready = await Promise.all(APPS.map((a) => waitReady(a)));
  if (stopping) return;
  const u = (app, l) => (urls[app] && urls[app][l]) || '(not listening)';
  // People open the dashboard, not the coordinator's root: print the page's own URL.
  const dashboard =
    urls.coordinator && urls.coordinator.http ? `${urls.coordinator.http}/ui` : '(not listening)';
  const lines = [
    '',
    'model mesh is up:',
    `  router        ${u('router', 'http')} (OpenAPI at /docs), gRPC ${u('router', 'grpc')}`,
    `  model-host    ${u('model-host', 'http')} (KServe v2), gRPC ${u('model-host', 'grpc')}, metrics ${u('model-host', 'metrics')}/metrics`,
    `  batch-worker  ${u('batch-worker', 'http')} (bulk jobs: docs/jobs.md)`,
    `  coordinator   ${dashboard} (operator dashboard), API ${u('coordinator', 'http')} (OpenAPI at /docs)`,
    `  redis         ${named || redisUrl}, key prefix ${redisPrefixes()}`,
    `  admin key     ${adminKey}`,
    ...demoKeys().map((l) => `  ${l}`),
    '',
    ...APPS.map(
      (a, i) =>
        `  ${a.padEnd(13)} ${ready[i] ? 'ready' : 'NOT ready'} (${u(a, 'http')}/healthz/ready)`,
    ),
    '',
    'Press Ctrl-C to stop.',
  ];
  console.log(lines.join('\n'));
  console.log(JSON.stringify({ event: 'mesh-up', ready: APPS.every((_, i) => ready[i]), urls }));
}

main().catch((err) => {
  console.error(`npm run up failed: ${err instanceof Error ? err.message : String(err)}`);
  void stopAll(1);
});
