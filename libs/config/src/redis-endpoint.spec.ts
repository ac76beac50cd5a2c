import { ConfigError } from './config.errors';
import { redisEnv } from './env.schema';
import { loadConfig } from './load-config';
import {
  describeRedisEndpoint,
  parseHostPort,
  redisEndpointOf,
  redisIssues,
} from './redis-endpoint';

const load = (env: NodeJS.ProcessEnv) => loadConfig('router', redisEnv, env, redisIssues);
const endpoint = (env: NodeJS.ProcessEnv) => redisEndpointOf(load(env));

function problems(env: NodeJS.ProcessEnv): string {
  try {
    load(env);
  } catch (err: unknown) {
    if (err instanceof ConfigError) return err.message;
    throw err;
  }
  throw new Error('expected a ConfigError');
}

describe('parseHostPort', () => {
  it.each([
    ['127.0.0.1:7000', { host: '127.0.0.1', port: 7000 }],
    ['redis-0.redis:6379', { host: 'redis-0.redis', port: 6379 }],
    ['[::1]:26379', { host: '::1', port: 26379 }],
    ['host', undefined],
    ['host:0', undefined],
    ['host:70000', undefined],
    ['::1:6379', undefined],
  ])('%s', (entry, parsed) => {
    expect(parseHostPort(entry)).toEqual(parsed);
  });
});

describe('redisEndpointOf', () => {
  it('is the local standalone Redis when nothing is set', () => {
    expect(endpoint({})).toEqual({ mode: 'standalone', url: 'redis://127.0.0.1:6379', tls: false });
  });

  it('takes a standalone URL with credentials from the environment', () => {
    expect(
      endpoint({ REDIS_URL: 'rediss://redis.internal:6380', REDIS_PASSWORD: 's3cret' }),
    ).toEqual({
      mode: 'standalone',
      url: 'rediss://redis.internal:6380',
      password: 's3cret',
      tls: false,
    });
  });

  it('takes cluster seed nodes, TLS and an ACL user', () => {
    expect(
      endpoint({
        REDIS_CLUSTER_NODES: '10.0.0.1:7000, 10.0.0.2:7000',
        REDIS_TLS: 'true',
        REDIS_USERNAME: 'mesh',
        REDIS_PASSWORD: 'pw',
      }),
    ).toEqual({
      mode: 'cluster',
      nodes: [
        { host: '10.0.0.1', port: 7000 },
        { host: '10.0.0.2', port: 7000 },
      ],
      username: 'mesh',
      password: 'pw',
      tls: true,
    });
  });

  it('takes Sentinels, the master name and the Sentinels own password', () => {
    expect(
      endpoint({
        REDIS_SENTINELS: 's1:26379,s2:26379,s3:26379',
        REDIS_SENTINEL_MASTER: 'mesh',
        REDIS_SENTINEL_PASSWORD: 'sentinel-pw',
      }),
    ).toEqual({
      mode: 'sentinel',
      sentinels: [
        { host: 's1', port: 26379 },
        { host: 's2', port: 26379 },
        { host: 's3', port: 26379 },
      ],
      masterName: 'mesh',
      sentinelPassword: 'sentinel-pw',
      tls: false,
    });
  });
});

describe('redisIssues', () => {
  it('refuses two modes at once, naming the variables and the choice', () => {
    const message = problems({
      REDIS_CLUSTER_NODES: '127.0.0.1:7000',
      REDIS_SENTINELS: '127.0.0.1:26379',
      REDIS_SENTINEL_MASTER: 'mesh',
    });
    expect(message).toContain('router: invalid configuration (1 problem)');
    expect(message).toContain(
      'REDIS_CLUSTER_NODES and REDIS_SENTINELS: name one Redis mode: REDIS_URL (standalone), ' +
        'REDIS_CLUSTER_NODES (cluster) or REDIS_SENTINELS with REDIS_SENTINEL_MASTER (sentinel)',
    );
    expect(problems({ REDIS_URL: 'redis://a:6379', REDIS_CLUSTER_NODES: 'b:7000' })).toContain(
      'REDIS_URL and REDIS_CLUSTER_NODES: name one Redis mode',
    );
  });

  it('refuses Sentinels without a master name, and the other way round', () => {
    expect(problems({ REDIS_SENTINELS: '127.0.0.1:26379' })).toContain(
      'REDIS_SENTINELS: is set, so REDIS_SENTINEL_MASTER must be set too',
    );
    expect(problems({ REDIS_SENTINEL_MASTER: 'mesh' })).toContain(
      'REDIS_SENTINEL_MASTER: is set, so REDIS_SENTINELS must be set too',
    );
    expect(problems({ REDIS_SENTINEL_PASSWORD: 'pw', REDIS_URL: 'redis://a' })).toContain(
      'REDIS_SENTINEL_PASSWORD: is set, so REDIS_SENTINELS must be set too',
    );
  });

  it('names a malformed node list and a bad TLS switch', () => {
    const message = problems({ REDIS_CLUSTER_NODES: 'a:7000,b', REDIS_TLS: 'yes' });
    expect(message).toContain('REDIS_CLUSTER_NODES: every entry must be host:port');
    expect(message).toContain('REDIS_TLS: must be true or false');
  });
});

describe('describeRedisEndpoint', () => {
  it('says the mode and nodes, never credentials', () => {
    expect(describeRedisEndpoint(endpoint({ REDIS_URL: 'redis://:hunter2@10.0.0.5:6379' }))).toBe(
      'standalone redis://10.0.0.5:6379',
    );
    expect(
      describeRedisEndpoint(
        endpoint({ REDIS_CLUSTER_NODES: '[::1]:7000,127.0.0.1:7001', REDIS_PASSWORD: 'hunter2' }),
      ),
    ).toBe('cluster [::1]:7000,127.0.0.1:7001');
    expect(
      describeRedisEndpoint(
        endpoint({ REDIS_SENTINELS: 's1:26379', REDIS_SENTINEL_MASTER: 'mesh' }),
      ),
    ).toBe('sentinel master "mesh" via s1:26379');
  });
});
