import { commonEnv, endpoints, port, redisEnv } from './env.schema';
import { loadConfig } from './load-config';
import { configErrorOf } from './testing/config-error';

const shape = {
  ...commonEnv,
  ...redisEnv,
  KSERVE_ENDPOINTS: endpoints,
  ROUTER_HTTP_PORT: port(8080),
};

describe('loadConfig', () => {
  it('applies the documented defaults when nothing is set', () => {
    const cfg = loadConfig('router', shape, {});
    expect(cfg).toEqual({
      LOG_LEVEL: 'info',
      HOST: '127.0.0.1',
      HTTP_REQUEST_TIMEOUT_MS: 300_000,
      HTTP_HEADERS_TIMEOUT_MS: 10_000,
      // No mode named: redisEndpointOf gives the standalone default, redis://127.0.0.1:6379.
      REDIS_TLS: false,
      REDIS_KEY_PREFIX: 'mesh',
      KSERVE_ENDPOINTS: ['127.0.0.1:8001'],
      ROUTER_HTTP_PORT: 8080,
    });
  });

  it('accepts port 0 as "any free port" and splits endpoint lists', () => {
    const cfg = loadConfig('router', shape, {
      ROUTER_HTTP_PORT: '0',
      KSERVE_ENDPOINTS: 'a:1, b:2',
    });
    expect(cfg.ROUTER_HTTP_PORT).toBe(0);
    expect(cfg.KSERVE_ENDPOINTS).toEqual(['a:1', 'b:2']);
  });

  it('lists every bad variable at once, naming each and the reason', () => {
    const err = configErrorOf(() => {
      loadConfig('router', shape, {
        ROUTER_HTTP_PORT: '70000',
        REDIS_URL: 'http://nope',
        KSERVE_ENDPOINTS: 'missing-port',
        LOG_LEVEL: 'loud',
      });
    });
    const ce = err;
    expect(ce.issues.map((i) => i.variable).sort()).toEqual([
      'KSERVE_ENDPOINTS',
      'LOG_LEVEL',
      'REDIS_URL',
      'ROUTER_HTTP_PORT',
    ]);
    expect(ce.message).toContain('ROUTER_HTTP_PORT: must be between 0 and 65535 (got "70000")');
    expect(ce.message).toContain('REDIS_URL: must be a redis:// or rediss:// URL');
  });

  it('rejects a non-numeric port with a clear reason', () => {
    expect(() => loadConfig('router', shape, { ROUTER_HTTP_PORT: 'eighty' })).toThrow(
      /ROUTER_HTTP_PORT: must be a number/,
    );
  });
});
