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
