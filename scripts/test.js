#!/usr/bin/env node
// `npm test`: installs and generates what is missing, then lint, typecheck, dependency rules,
// build, and the unit, integration and e2e suites. Ends with one "N passed, N failed" line.
'use strict';
const { existsSync, mkdirSync, readFileSync } = require('node:fs');
const { join } = require('node:path');
const { spawnSync } = require('node:child_process');

async function main() {
  // Only node built-ins may be required before the install step.
  const setup = require('./lib/setup');
  setup.ensureInstalled();
  setup.ensureModels();
  const { url, proc } = await setup.ensureRedis();
  process.env.REDIS_URL = url;
  const steps = [
    ['lint', ['run', '-s', 'lint']],
    ['format', ['run', '-s', 'format:check']],
    ['typecheck', ['run', '-s', 'typecheck']],
    ['dependency rules', ['run', '-s', 'depcheck']],
    ['model repository is reproducible', ['run', '-s', 'models', '--', '--check']],
  ];
  const failed = [];
  try {
    // Every static check runs even when an earlier one fails, so one run shows all problems.
    for (const [name, args] of steps) {
      console.log(`\n> ${name}`);
      try {
        setup.run('npm', args);
      } catch {
        failed.push(name);
      }
    }
    setup.build();
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
