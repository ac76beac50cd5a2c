#!/usr/bin/env node
// Runs a TypeScript entry point with the project's tsx, passing the remaining
// arguments through: `node scripts/run-ts.js scripts/generate-models.ts --size small`.
'use strict';
const { spawn } = require('node:child_process');
const { existsSync } = require('node:fs');
const { constants } = require('node:os');
const { join, resolve } = require('node:path');

const [entry, ...args] = process.argv.slice(2);
if (!entry) {
  console.error('usage: node scripts/run-ts.js <file.ts> [args...]');
  process.exit(2);
}
const root = join(__dirname, '..');
const tsx = join(root, 'node_modules', '.bin', process.platform === 'win32' ? 'tsx.cmd' : 'tsx');
if (!existsSync(tsx)) {
  console.error(`tsx is not installed (${tsx} missing); run \`npm ci\` first`);
  process.exit(1);
}
const child = spawn(tsx, [resolve(entry), ...args], { stdio: 'inherit' });
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => child.kill(signal));
}
child.on('exit', (code, signal) => {
  // Same convention as a shell: 128 + signal number when the child was killed.
  process.exit(signal ? 128 + (constants.signals[signal] ?? 0) : (code ?? 1));
});
