#!/usr/bin/env node
// `npm run test:redis-modes`: the mesh on every Redis mode. Standalone is what `npm test` runs
// throughout; this adds the end-to-end suite (predict, a 10k-item bulk job, a rollout, the
// dashboard) once per mode on servers it starts on loopback, and the integration specs that
// start a Redis Cluster or a Sentinel setup. Ends with one line per mode; exits 1 on a failure.
'use strict';
const { join } = require('node:path');
const { spawnSync } = require('node:child_process');

const MODES = ['cluster', 'sentinel'];

async function main() {
  const setup = require('./lib/setup');
  setup.ensureInstalled();
  setup.ensureModels();
  const { url, proc } = await setup.ensureRedis();
  const jestBin = join(setup.ROOT, 'node_modules', 'jest', 'bin', 'jest.js');
  const outcomes = [];
  const runJest = (name, args, env = {}) => {
    console.log(`\n> ${name}`);
    const run = spawnSync(process.execPath, [jestBin, '--ci', ...args], {
      cwd: setup.ROOT,
      stdio: 'inherit',
      env: { ...process.env, REDIS_URL: url, ...env },
    });
    outcomes.push({ name, ok: run.status === 0 });
  };
  try {
    setup.build();
    // Paths first: --selectProjects takes every name after it.
    runJest('integration specs on a cluster and a Sentinel setup', [
      'redis.modes',
      'redis-replica-ack',
      'job-change-feed-cluster',
      'job-change-feed-sentinel',
      '--selectProjects',
      'integration',
    ]);
    for (const mode of MODES) {
      runJest(
        `end to end on ${mode}`,
        ['test/redis-modes.e2e-spec.ts', '--selectProjects', 'e2e'],
        { MESH_E2E_REDIS_MODE: mode, MESH_SKIP_BUILD: '1' },
      );
    }
  } finally {
    if (proc) proc.kill('SIGTERM');
  }
  console.log('');
  for (const o of outcomes) console.log(`${o.ok ? 'passed' : 'FAILED'}  ${o.name}`);
  if (outcomes.some((o) => !o.ok)) process.exit(1);
}

main().catch((err) => {
  console.error(
    `\nnpm run test:redis-modes failed: ${err instanceof Error ? err.message : String(err)}`,
  );
  process.exit(1);
});
