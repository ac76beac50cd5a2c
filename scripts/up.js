#!/usr/bin/env node
// `npm run up`: installs what is missing, generates the demo models, finds or starts Redis,
// builds, then runs model-host, router, batch-worker and coordinator as processes with
// prefixed logs, prints their URLs, and stops them all on Ctrl-C.
'use strict';
const { spawn } = require('node:child_process');
const { existsSync, readFileSync } = require('node:fs');
const { join } = require('node:path');
const setup = require('./lib/setup');

const COLORS = { 'model-host': 36, router: 32, 'batch-worker': 35, coordinator: 33, redis: 90 };
const APPS = [
  { name: 'model-host', ready: 'http://127.0.0.1:8000/healthz/ready' },
  { name: 'router', ready: 'http://127.0.0.1:8080/healthz/ready' },
  { name: 'batch-worker', ready: 'http://127.0.0.1:9100/healthz/ready' },
  { name: 'coordinator', ready: 'http://127.0.0.1:8090/healthz/ready' },
];

const children = new Map();
let stopping = false;

function prefixed(name, line) {
  let text = line;
  if (line.startsWith('{')) {
    try {
      const e = JSON.parse(line);
      text = `${(e.level || 'info').padEnd(5)} ${e.context ? `[${e.context}] ` : ''}${e.msg ?? ''}`;
      if (e.err && e.err.message) text += ` — ${e.err.message}`;
    } catch {
      // keep the raw line
    }
  }
  const color = process.stdout.isTTY ? `\x1b[${COLORS[name] || 0}m` : '';
  const reset = process.stdout.isTTY ? '\x1b[0m' : '';
  process.stdout.write(`${color}${name.padEnd(12)}|${reset} ${text}\n`);
}

function startApp(name, env) {
  const proc = spawn(process.execPath, [join(setup.ROOT, 'dist', 'apps', name, 'src', 'main.js')], {
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

async function waitReady(url, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      const res = await fetch(url);
      if (res.status === 200) return true;
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

function demoKeys() {
  const file = process.env.MESH_CONFIG || join(setup.ROOT, 'deploy', 'config', 'mesh.yaml');
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => /^#.*(key|tenant)/i.test(l))
    .map((l) => l.replace(/^#\s?/, ''));
}

async function main() {
  setup.ensureInstalled();
  setup.ensureModels();
  const { url, proc: redis } = await setup.ensureRedis();
  if (redis) children.set('redis', redis);
  setup.build();
  const adminKey = process.env.ADMIN_API_KEY || 'mesh-admin-demo-key';
  const env = { REDIS_URL: url, ADMIN_API_KEY: adminKey };
  process.on('SIGINT', () => void stopAll(0));
  process.on('SIGTERM', () => void stopAll(0));

  startApp('model-host', env);
  if (!(await waitReady(APPS[0].ready))) throw new Error('model-host did not become ready');
  for (const app of APPS.slice(1)) startApp(app.name, env);
  const ready = await Promise.all(APPS.map((a) => waitReady(a.ready)));
  if (stopping) return;
  const lines = [
    '',
    'model mesh is up:',
    '  router        HTTP http://127.0.0.1:8080 (OpenAPI /docs)   gRPC 127.0.0.1:50051',
    '  model-host    HTTP http://127.0.0.1:8000 (KServe v2)        gRPC 127.0.0.1:8001   metrics http://127.0.0.1:8002/metrics',
    '  batch-worker  HTTP http://127.0.0.1:9100',
    '  coordinator   HTTP http://127.0.0.1:8090',
    `  redis         ${url}`,
    `  admin key     ${adminKey}`,
    ...demoKeys().map((l) => `  ${l}`),
    '',
    ...APPS.map((a, i) => `  ${a.name.padEnd(13)} ${ready[i] ? 'ready' : 'NOT ready'} (${a.ready})`),
    '',
    'Press Ctrl-C to stop.',
  ];
  console.log(lines.join('\n'));
}

main().catch((err) => {
  console.error(`npm run up failed: ${err instanceof Error ? err.message : String(err)}`);
  void stopAll(1);
});
