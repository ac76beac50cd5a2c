const { availableParallelism } = require('node:os');

// Three tiers: unit (no I/O), integration (real Redis / ORT), e2e (real processes).
// Type checking is done once by `npm run typecheck`; swc only strips types here.
const swc = [
  '@swc/jest',
  {
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true },
      target: 'es2022',
    },
    module: { type: 'commonjs' },
    sourceMaps: 'inline',
  },
];

const moduleNameMapper = {
  '^@mesh/(errors|config|app-config|telemetry|kserve|model-repository|preprocessing|routing|tenancy|signals|inference|jobs|rollout-contract|placement)$':
    '<rootDir>/libs/$1/src/index.ts',
};

// Integration and e2e files fail when they leave keys under a Redis prefix they took from
// test/support/redis-prefix.ts (see test/support/redis-clean-environment.js).
const redisCleanEnvironment = '<rootDir>/test/support/redis-clean-environment.js';

const base = {
  rootDir: __dirname,
  transform: { '^.+\\.ts$': swc },
  moduleNameMapper,
  testEnvironment: 'node',
};

module.exports = {
  // The integration and e2e suites spend most of their time waiting on the processes, Redis and
  // timers they drive; Jest's default (cores − 1) would leave one worker on a 2-core machine and
  // the second core idle through those waits. Every file isolates its Redis state and ports, so
  // files may run side by side.
  maxWorkers: Math.max(2, availableParallelism() - 1),
  projects: [
    { ...base, displayName: 'unit', testMatch: ['<rootDir>/{apps,libs,scripts}/**/*.spec.ts'] },
    {
      ...base,
      displayName: 'integration',
      testEnvironment: redisCleanEnvironment,
      // Real Redis and ONNX Runtime sessions on a shared 2-core machine.
      setupFilesAfterEnv: ['<rootDir>/test/support/long-timeout.js'],
      testMatch: ['<rootDir>/{apps,libs,scripts}/**/*.int-spec.ts'],
    },
    {
      ...base,
      displayName: 'e2e',
      testEnvironment: redisCleanEnvironment,
      testMatch: ['<rootDir>/test/**/*.e2e-spec.ts'],
      globalSetup: '<rootDir>/test/support/global-setup.js',
      setupFilesAfterEnv: ['<rootDir>/test/support/long-timeout.js'],
    },
  ],
};
