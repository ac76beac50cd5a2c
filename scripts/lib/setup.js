// Shared set-up steps for `npm run up` and `npm test`. Plain CommonJS so it runs before
// dependencies are installed.
'use strict';
const { spawnSync, spawn } = require('node:child_process');
const { createHash } = require('node:crypto');
const { existsSync, readdirSync, readFileSync, statSync } = require('node:fs');
const net = require('node:net');
const { join } = require('node:path');

const ROOT = join(__dirname, '..', '..');

function run(cmd, args, opts = {}) {
  const res = spawnSync(cmd, args, { cwd: ROOT, stdio: 'inherit', ...opts });
  if (res.status !== 0) {
    throw new Error(`\`${cmd} ${args.join(' ')}\` failed with exit code ${res.status}`);
  }
}

/** `npm ci` when node_modules is missing or older than the lockfile. */
function ensureInstalled() {
  const marker = join(ROOT, 'node_modules', '.package-lock.json');
  const lock = join(ROOT, 'package-lock.json');
  if (existsSync(marker) && statSync(marker).mtimeMs >= statSync(lock).mtimeMs) return;
  console.log('> installing dependencies (npm ci)');
  // onnxruntime-node's install script reads this (npm 10 runs it; npm 11 follows allowScripts):
  // the CPU binaries ship in the package, the GPU download would leave the npm registry.
  run('npm', ['ci', '--no-audit', '--no-fund'], {
    env: { ...process.env, ONNXRUNTIME_NODE_INSTALL: 'skip' },
  });
}

/**
 * False when a version's model.onnx is missing or is not the file its committed manifest pins:
 * a generator change lands with new manifests, and the host refuses a model whose sha256
 * differs from its pin, so a checkout holding the previous file must rebuild it.
 */
function modelIsCurrent(versionDir) {
  const onnx = join(versionDir, 'model.onnx');
  if (!existsSync(onnx)) return false;
  let pinned;
  try {
    pinned = JSON.parse(readFileSync(join(versionDir, 'preprocess.json'), 'utf8')).model.sha256;
  } catch {
    return false;
  }
  return createHash('sha256').update(readFileSync(onnx)).digest('hex') === pinned;
}

/** Generates any missing or outdated demo model.onnx (configs, manifests and tokenizers are committed). */
function ensureModels() {
  const repo = join(ROOT, 'model_repository');
  const missing = [];
  for (const model of readdirSync(repo)) {
    const dir = join(repo, model);
    if (!statSync(dir).isDirectory()) continue;
    for (const version of readdirSync(dir)) {
      if (/^\d+$/.test(version) && !modelIsCurrent(join(dir, version))) {
        missing.push(`${model}/${version}`);
      }
    }
  }
  if (missing.length === 0) return;
  console.log(`> generating demo models: ${missing.join(', ')}`);
  run('npm', ['run', '-s', 'models']);
}

function build() {
  console.log('> building (tsc)');
  run('npm', ['run', '-s', 'build']);
}

/** Resolves true when something at host:port answers a Redis PING. */
function redisAnswers(url, timeoutMs = 1000) {
  const u = new URL(url);
  return new Promise((resolve) => {
    const sock = net.connect({ host: u.hostname || '127.0.0.1', port: Number(u.port || 6379) });
    const done = (ok) => {
      sock.destroy();
      resolve(ok);
    };
    sock.setTimeout(timeoutMs, () => done(false));
    sock.on('error', () => done(false));
    sock.on('connect', () => sock.write('PING\r\n'));
    sock.on('data', (d) => done(/^\+PONG|^-NOAUTH/.test(d.toString())));
  });
}

function which(cmd) {
  const res = spawnSync('sh', ['-c', `command -v ${cmd}`], { encoding: 'utf8' });
  return res.status === 0 ? res.stdout.trim() : undefined;
}

/**
 * Uses REDIS_URL (or 127.0.0.1:6379) when it answers; otherwise starts a throw-away
 * `redis-server` on that port. Returns the child process it started, if any.
 */
async function ensureRedis() {
  const url = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
  if (await redisAnswers(url)) return { url, proc: undefined };
  const bin = which('redis-server');
  if (!bin) {
    throw new Error(
      `Nothing answers on ${url} and redis-server is not installed.\n` +
        '  Install it (Debian/Ubuntu: `sudo apt-get update && sudo apt-get install -y redis-server`;\n' +
        '  macOS: `brew install redis`) or point REDIS_URL at a running Redis.',
    );
  }
  const port = Number(new URL(url).port || 6379);
  console.log(`> starting redis-server on port ${port} (nothing answered on ${url})`);
  const proc = spawn(
    bin,
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    {
      stdio: 'ignore',
    },
  );
  const deadline = Date.now() + 10_000;
  while (!(await redisAnswers(url))) {
    if (Date.now() > deadline) throw new Error(`redis-server did not answer on ${url} within 10 s`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return { url, proc };
}

module.exports = { ROOT, run, ensureInstalled, ensureModels, build, ensureRedis, redisAnswers };
