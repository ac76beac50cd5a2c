// The Node test environment of the integration and e2e projects, plus one check: once a test
// file's tests and afterAll hooks have run, every Redis key prefix the file took from
// test/support/redis-prefix.ts (`uniquePrefix`) must be empty. A leftover key fails the file,
// naming the file, the prefix and a few of the keys. It runs here rather than in a
// setupFilesAfterEnv afterAll because Jest runs afterAll hooks in declaration order, so a setup
// file's hook would run before the suite's own cleanup. Reported keys are then removed, so one
// leaking run does not leave them for the next.
const { relative } = require('node:path');
const { TestEnvironment } = require('jest-environment-node');
const Redis = require('ioredis');

// Same key as REGISTRY_KEY in redis-prefix.ts: the registry lives on the test file's global.
const REGISTRY_KEY = '__meshTestRedisPrefixes';
const SHOWN_KEYS = 5;

function prefixPattern(prefix) {
  return `${prefix.replace(/[*?[\]\\]/g, '\\$&')}*`;
}

async function keysUnder(redis, prefix) {
  const keys = [];
  let cursor = '0';
  do {
    const [next, batch] = await redis.scan(cursor, 'MATCH', prefixPattern(prefix), 'COUNT', 1000);
    keys.push(...batch);
    cursor = next;
  } while (cursor !== '0');
  return keys;
}

/** One message per prefix with keys left under it (or that could not be checked). */
async function leftovers(file, registered) {
  const byUrl = new Map();
  for (const { prefix, url } of registered) {
    if (url === undefined) continue; // on a server the suite started and stopped
    byUrl.set(url, [...(byUrl.get(url) ?? []), prefix]);
  }
  const problems = [];
  for (const [url, prefixes] of byUrl) {
    const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
    try {
      await redis.connect();
      for (const prefix of prefixes) {
        const keys = await keysUnder(redis, prefix);
        if (keys.length === 0) continue;
        for (let i = 0; i < keys.length; i += 500) await redis.unlink(...keys.slice(i, i + 500));
        const shown = keys.sort().slice(0, SHOWN_KEYS).join(', ');
        const more = keys.length > SHOWN_KEYS ? `, … (${keys.length - SHOWN_KEYS} more)` : '';
        problems.push(
          `${file} left ${keys.length} Redis key(s) under its prefix "${prefix}" on ${url}: ` +
            `${shown}${more}. Remove them in afterAll (dropPrefix in test/support/redis-prefix.ts).`,
        );
      }
    } catch (err) {
      problems.push(
        `${file}: could not check its Redis prefixes ${prefixes.join(', ')} on ${url}: ${err.message}`,
      );
    } finally {
      redis.disconnect();
    }
  }
  return problems;
}

class RedisCleanEnvironment extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    this.file = relative(config.projectConfig.rootDir, context.testPath);
  }

  async handleTestEvent(event, state) {
    // run_finish: every test and hook of the file is done; the run result is built right after,
    // so an error added here fails the file like an error in an afterAll hook would.
    if (event.name !== 'run_finish') return;
    const registered = this.global[REGISTRY_KEY] ?? [];
    if (registered.length === 0) return;
    for (const problem of await leftovers(this.file, registered)) {
      const error = new Error(problem);
      error.stack = problem; // the place to look is the suite, not this file
      state.unhandledErrors.push(error);
    }
  }
}

module.exports = RedisCleanEnvironment;
