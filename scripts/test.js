#!/usr/bin/env node
// `npm test`: installs and generates what is missing; then lint, format, typecheck, dependency
// rules, the models check and the build (in two lanes side by side); then the unit, integration
// and e2e suites. Ends with one "N passed, N failed" line.
'use strict';
const { existsSync, mkdirSync, readFileSync } = require('node:fs');
const { join } = require('node:path');
const { spawnSync } = require('node:child_process');

async function main() {
  // Only node built-ins may be required before the install step.
  const setup = require('./lib/setup');
  const { runLanes } = require('./lib/step-lanes');
  setup.ensureInstalled();
  setup.ensureModels();
  const { url, proc } = await setup.ensureRedis();
  process.env.REDIS_URL = url;
  const npm = (name, script, ...args) => ({
    name,
    cmd: 'npm',
    args: ['run', '-s', script, ...args],
  });
  // Two lanes side by side (see step-lanes.js): eslint alone is about as long as the rest.
  const lanes = [
    [npm('lint', 'lint')],
    [
      npm('format', 'format:check'),
      npm('typecheck', 'typecheck'),
      npm('dependency rules', 'depcheck'),
      npm('model repository is reproducible', 'models', '--', '--check'),
      npm('build', 'build'),
    ],
  ];
  const failed = [];
  try {
    console.log('\n> lint, format, typecheck, dependency rules, models and build (two lanes)');
    failed.push(...(await runLanes(lanes, { cwd: setup.ROOT })));
    // The suites run the built apps: without a build there is nothing to test.
    if (failed.includes('build')) throw new Error(`failed: ${failed.join(', ')}`);
    const out = join(setup.ROOT, '.run');
    mkdirSync(out, { recursive: true });
    const resultFile = join(out, 'jest-results.json');
    console.log('\n> jest (unit, integration, e2e)');
    const jest = spawnSync(
      process.execPath,
      [
        join(setup.ROOT, 'node_modules', 'jest', 'bin', 'jest.js'),
        '--ci',
        '--json',
        `--outputFile=${resultFile}`,
        ...process.argv.slice(2),
      ],
      { cwd: setup.ROOT, stdio: 'inherit', env: { ...process.env, MESH_SKIP_BUILD: '1' } },
    );
    if (existsSync(resultFile)) {
      const r = JSON.parse(readFileSync(resultFile, 'utf8'));
      console.log(
        `\njest: ${r.numPassedTests} passed, ${r.numFailedTests} failed, ${r.numPendingTests} skipped`,
      );
      if (r.numTotalTests === 0) throw new Error('jest ran no test');
    }
    if (jest.status !== 0) failed.push(`jest (exit code ${jest.status})`);
    if (failed.length > 0) throw new Error(`failed: ${failed.join(', ')}`);
  } finally {
    if (proc) proc.kill('SIGTERM');
  }
}

main().catch((err) => {
  console.error(`\nnpm test failed: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
