/** Architecture rules, checked inside `npm test`. */
module.exports = {
  forbidden: [
    { name: 'no-circular', severity: 'error', from: {}, to: { circular: true } },
    {
      name: 'no-lib-to-app',
      comment: 'libs are capabilities; apps compose them, never the reverse',
      severity: 'error',
      from: { path: '^libs/' },
      to: { path: '^apps/' },
    },
    {
      name: 'no-script-to-app',
      comment:
        'scripts and benches compose libs; an app is a process they start, never a module they import ' +
        "(an app's env surface is read from @mesh/app-config, the signature check from " +
        "@mesh/model-repository; `mesh model add` forks the model host's footprint entry)",
      severity: 'error',
      from: { path: '^(scripts|bench)/' },
      to: { path: '^apps/' },
    },
    {
      name: 'no-app-to-app',
      severity: 'error',
      from: { path: '^apps/([^/]+)/' },
      to: { path: '^apps/([^/]+)/', pathNot: '^apps/$1/' },
    },
    {
      name: 'no-deep-lib-imports',
      comment:
        "a lib's public surface is its src/index.ts; other libs and apps go through the @mesh alias",
      severity: 'error',
      from: { path: '^(apps|libs/([^/]+))/', pathNot: '\\.(spec|int-spec)\\.ts$' },
      to: { path: '^libs/([^/]+)/src/(?!index\\.ts$)', pathNot: '^libs/$2/' },
    },
    {
      name: 'onnxruntime-only-in-model-host',
      comment: 'the native addon stays in the model host (and the offline generator/bench scripts)',
      severity: 'error',
      from: { pathNot: '^(apps/model-host|scripts|bench|test)/' },
      to: { path: 'onnxruntime-node' },
    },
    {
      name: 'inference-lib-framework-free',
      comment:
        'the router and the batch worker share @mesh/inference; it stays plain TypeScript so either can compose it',
      severity: 'error',
      from: { path: '^libs/inference/' },
      to: { path: '@nestjs' },
    },
    {
      name: 'errors-lib-at-the-bottom',
      comment:
        'every lib and app raises MeshErrors, so @mesh/errors depends on no other part of the mesh',
      severity: 'error',
      from: { path: '^libs/errors/', pathNot: '\\.(spec|int-spec)\\.ts$' },
      to: { path: '^(apps|libs/(?!errors/))' },
    },
    {
      name: 'no-test-imports-in-src',
      severity: 'error',
      from: { path: '^(apps|libs)/', pathNot: '\\.(spec|int-spec)\\.ts$' },
      to: { path: '^test/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    exclude: { path: '^(dist|node_modules)/' },
  },
};
