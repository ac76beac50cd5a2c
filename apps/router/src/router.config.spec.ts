import { ConfigError } from '@mesh/config';
import { loadRouterConfig } from './router.config';

describe('router config: traffic signals', () => {
  it('records signals unless told otherwise', () => {
    expect(loadRouterConfig({}).ROUTER_TRAFFIC_SIGNALS).toBe('on');
    expect(loadRouterConfig({ ROUTER_TRAFFIC_SIGNALS: 'off' }).ROUTER_TRAFFIC_SIGNALS).toBe('off');
  });

  it('refuses any other value, naming the variable', () => {
    let error: unknown;
    try {
      loadRouterConfig({ ROUTER_TRAFFIC_SIGNALS: 'false' });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).issues.map((i) => i.variable)).toEqual([
      'ROUTER_TRAFFIC_SIGNALS',
    ]);
  });
});

describe('router config: backend channels', () => {
  it('reads the shared KSERVE_* variables, the older router names only as fallbacks', () => {
    const old = loadRouterConfig({
      GRPC_MAX_MESSAGE_BYTES: '1048576',
      ROUTER_INFER_TIMEOUT_MS: '2500',
      ROUTER_DISCOVERY_INTERVAL_MS: '300',
    });
    expect(old).toMatchObject({
      KSERVE_MAX_MESSAGE_BYTES: 1048576,
      KSERVE_DEADLINE_MS: 2500,
      KSERVE_HEALTH_INTERVAL_MS: 300,
    });
    const both = loadRouterConfig({ ROUTER_INFER_TIMEOUT_MS: '2500', KSERVE_DEADLINE_MS: '900' });
    expect(both.KSERVE_DEADLINE_MS).toBe(900);
  });

  it('lists a TLS key without its certificate and a client CA without TLS', () => {
    let error: unknown;
    try {
      loadRouterConfig({ ROUTER_GRPC_TLS_KEY: __filename, ROUTER_GRPC_TLS_CLIENT_CA: __filename });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).issues.map((i) => i.variable)).toEqual([
      'ROUTER_GRPC_TLS_KEY',
      'ROUTER_GRPC_TLS_CLIENT_CA',
    ]);
  });
});
