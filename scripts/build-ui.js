#!/usr/bin/env node
// Builds the operator dashboard (ui/) into dist/ui: one ES module bundle, one stylesheet
// (uPlot's included) and index.html. Run by `npm run build`; the coordinator serves it at /ui.
'use strict';
const { copyFileSync, mkdirSync } = require('node:fs');
const { join } = require('node:path');
const esbuild = require('esbuild');

const ROOT = join(__dirname, '..');
const OUT = join(ROOT, 'dist', 'ui');

async function main() {
  mkdirSync(OUT, { recursive: true });
  const common = { bundle: true, minify: true, target: ['es2022'], logLevel: 'warning' };
  await Promise.all([
    esbuild.build({
      ...common,
      entryPoints: [join(ROOT, 'ui', 'src', 'main.ts')],
      format: 'esm',
      outfile: join(OUT, 'app.js'),
    }),
    esbuild.build({
      ...common,
      entryPoints: [join(ROOT, 'ui', 'app.css')],
      outfile: join(OUT, 'app.css'),
    }),
  ]);
  copyFileSync(join(ROOT, 'ui', 'index.html'), join(OUT, 'index.html'));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
