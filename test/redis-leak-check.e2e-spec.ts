/**
 * The check that fails a test file for keys left under its Redis prefix can fail: a fixture
 * suite that leaves a key, a stream and a BullMQ queue behind runs in a child Jest, which must
 * exit non-zero naming the file, the prefix and leftover keys; the same suite cleaning up passes.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from './support/app-process';
import Redis from 'ioredis';
import { SHARED_REDIS_URL, keysUnder } from './support/redis-prefix';

const FIXTURE = 'test/support/fixtures/redis-leak-fixture.ts';

/** Runs the fixture alone under the integration/e2e test environment. */
function runFixture(env: Record<string, string>): { status: number | null; output: string } {
  const config = {
    rootDir: ROOT,
    testMatch: [`<rootDir>/${FIXTURE}`],
    testEnvironment: '<rootDir>/test/support/redis-clean-environment.js',
    transform: {
      '^.+\\.ts$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' } }],
    },
  };
  const result = spawnSync(
    process.execPath,
    [join(ROOT, 'node_modules/jest/bin/jest.js'), '--config', JSON.stringify(config), '--ci'],
    { cwd: ROOT, env: { ...process.env, ...env }, encoding: 'utf8', timeout: 60_000 },
  );
  return { status: result.status, output: `${result.stdout}\n${result.stderr}` };
}

describe('the Redis leak check', () => {
  const redis = new Redis(SHARED_REDIS_URL);

  afterAll(() => redis.disconnect());

  it('fails a suite that leaves keys under its prefix, naming the file, prefix and keys', async () => {
    const { status, output } = runFixture({ LEAK_FIXTURE_CLEANS: '0' });
    const leakedPrefix = /under its prefix "([^"]+)"/.exec(output)?.[1] ?? '';

    expect(status).not.toBe(0);
    expect(leakedPrefix).toMatch(/^test-redis-leak-fixture-ts-/);
    expect(output).toContain(`${FIXTURE} left`);
    expect(output).toContain(`${leakedPrefix}:plain`);
    expect(output).toContain(`${leakedPrefix}:stream`);
    expect(output).toContain(`${leakedPrefix}:{bull}:leaky:`);
    // Reported keys are removed, so the next run starts from an empty prefix.
    expect(await keysUnder(redis, leakedPrefix)).toEqual([]);
  });

  it('passes the same suite when it removes its keys in afterAll', () => {
    const { status, output } = runFixture({ LEAK_FIXTURE_CLEANS: '1' });

    expect({ status, output }).toEqual({ status: 0, output: expect.stringContaining('PASS') });
    expect(output).not.toContain('Redis key(s) under its prefix');
  });
});
