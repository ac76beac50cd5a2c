import { redisEndpointOf } from '@mesh/config';
import { loadRouterConfig } from './router.config';
import { configErrorOf } from '../../config/src/testing/config-error';

describe('router config: traffic signals', () => {
  it('records signals unless told otherwise', () => {
    expect(loadRouterConfig({}).ROUTER_TRAFFIC_SIGNALS).toBe('on');
    expect(loadRouterConfig({ ROUTER_TRAFFIC_SIGNALS: 'off' }).ROUTER_TRAFFIC_SIGNALS).toBe('off');
  });

  it('refuses any other value, naming the variable', () => {
    const error = configErrorOf(() => {
      loadRouterConfig({ ROUTER_TRAFFIC_SIGNALS: 'false' });
    });
    expect(error.issues.map((i) => i.variable)).toEqual(['ROUTER_TRAFFIC_SIGNALS']);
  });
});

describe('router config: backend channels', () => {
  it('reads the shared KSERVE_* variables', () => {
    const config = loadRouterConfig({
      KSERVE_MAX_MESSAGE_BYTES: '1048576',
      KSERVE_DEADLINE_MS: '2500',
      KSERVE_HEALTH_INTERVAL_MS: '300',
    });
    expect(config).toMatchObject({
      KSERVE_MAX_MESSAGE_BYTES: 1048576,
      KSERVE_DEADLINE_MS: 2500,
      KSERVE_HEALTH_INTERVAL_MS: 300,
    });
  });

  it('no longer reads the names it had before the KSERVE_* set', () => {
    const config = loadRouterConfig({
      GRPC_MAX_MESSAGE_BYTES: '1048576',
      ROUTER_INFER_TIMEOUT_MS: '2500',
      ROUTER_DISCOVERY_INTERVAL_MS: '300',
    });
    expect(config).toMatchObject({
      KSERVE_MAX_MESSAGE_BYTES: 64 * 1024 * 1024,
      KSERVE_DEADLINE_MS: 10_000,
      KSERVE_HEALTH_INTERVAL_MS: 2000,
    });
  });

  it('lists a TLS key without its certificate and a client CA without TLS', () => {
    const error = configErrorOf(() => {
      loadRouterConfig({ ROUTER_GRPC_TLS_KEY: __filename, ROUTER_GRPC_TLS_CLIENT_CA: __filename });
    });
    expect(error.issues.map((i) => i.variable)).toEqual([
      'ROUTER_GRPC_TLS_KEY',
      'ROUTER_GRPC_TLS_CLIENT_CA',
    ]);
  });
});

describe('router config: request coalescing', () => {
  it('coalesces by default, calls in flight following the backend, 4-token buckets', () => {
    const c = loadRouterConfig({});
    // Unset: the coalescer follows the backend's instance count (inFlightFor).
    expect(c.ROUTER_COALESCE_IN_FLIGHT).toBeUndefined();
    expect(loadRouterConfig({ ROUTER_COALESCE_IN_FLIGHT: '5' }).ROUTER_COALESCE_IN_FLIGHT).toBe(5);
    expect(c).toMatchObject({
      ROUTER_COALESCE: 'on',
      ROUTER_COALESCE_MAX_ROWS: 64,
      ROUTER_COALESCE_MAX_TOKENS: 512,
      ROUTER_COALESCE_BUCKET: 4,
    });
    expect(loadRouterConfig({ ROUTER_COALESCE: 'off' }).ROUTER_COALESCE).toBe('off');
  });

  it('lists every bad coalescing variable at once', () => {
    const error = configErrorOf(() => {
      loadRouterConfig({
        ROUTER_COALESCE: 'yes',
        ROUTER_COALESCE_IN_FLIGHT: '0',
        ROUTER_COALESCE_MAX_ROWS: 'many',
        ROUTER_COALESCE_BUCKET: '-16',
      });
    });
    expect(error.issues.map((i) => i.variable).sort()).toEqual([
      'ROUTER_COALESCE',
      'ROUTER_COALESCE_BUCKET',
      'ROUTER_COALESCE_IN_FLIGHT',
      'ROUTER_COALESCE_MAX_ROWS',
    ]);
  });
});

describe('router config: Redis mode', () => {
  it('takes a cluster by its seed nodes', () => {
    const config = loadRouterConfig({ REDIS_CLUSTER_NODES: '10.0.0.1:6379,10.0.0.2:6379' });
    expect(redisEndpointOf(config)).toMatchObject({ mode: 'cluster' });
  });

  it('refuses a cluster and Sentinels at once, and Sentinels without a master name', () => {
    expect(() =>
      loadRouterConfig({ REDIS_CLUSTER_NODES: 'a:6379', REDIS_SENTINELS: 'b:26379' }),
    ).toThrow(
      /REDIS_CLUSTER_NODES and REDIS_SENTINELS: name one Redis mode[\s\S]*REDIS_SENTINELS: is set, so REDIS_SENTINEL_MASTER must be set too/,
    );
  });
});

describe('router config: cold starts', () => {
  it('waits 30 s by default; 0 turns the wait off', () => {
    expect(loadRouterConfig({}).ROUTER_COLD_START_WAIT_MS).toBe(30_000);
    expect(loadRouterConfig({ ROUTER_COLD_START_WAIT_MS: '0' }).ROUTER_COLD_START_WAIT_MS).toBe(0);
  });

  it.each(['-1', '1.5', 'soon', '600001'])('refuses %p, naming the variable', (value) => {
    const error = configErrorOf(() => {
      loadRouterConfig({ ROUTER_COLD_START_WAIT_MS: value });
    });
    expect(error.issues.map((i) => i.variable)).toEqual(['ROUTER_COLD_START_WAIT_MS']);
  });
});
