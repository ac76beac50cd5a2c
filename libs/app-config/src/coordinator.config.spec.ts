import { loadCoordinatorConfig } from './coordinator.config';
import { itReadsTheRedisMode } from './testing/redis-mode-cases';

describe('coordinator config: Redis mode', () => {
  itReadsTheRedisMode(loadCoordinatorConfig);
});

describe('coordinator config: placement', () => {
  it('has defaults: one minute of residency, 50 req/s per copy, no configured budgets', () => {
    const c = loadCoordinatorConfig({});
    expect(c.PLACEMENT_MIN_RESIDENCY_MS).toBe(60_000);
    expect(c.PLACEMENT_RATE_PER_COPY).toBe(50);
    expect(c.PLACEMENT_RATE_WINDOW_MS).toBe(30_000);
    expect(c.KSERVE_BACKEND_BUDGETS_MB).toEqual({ byAddress: new Map() });
  });

  it('reads budgets per backend or one for all', () => {
    const per = loadCoordinatorConfig({
      KSERVE_ENDPOINTS: 'host-a:8001,host-b:8001',
      KSERVE_BACKEND_BUDGETS_MB: 'host-a:8001=2048, host-b:8001=1024',
    });
    expect(per.KSERVE_BACKEND_BUDGETS_MB.byAddress).toEqual(
      new Map([
        ['host-a:8001', 2048],
        ['host-b:8001', 1024],
      ]),
    );
    expect(
      loadCoordinatorConfig({ KSERVE_BACKEND_BUDGETS_MB: '900' }).KSERVE_BACKEND_BUDGETS_MB.all,
    ).toBe(900);
  });

  it.each([
    ['lots', "'lots' is not a positive number of MB"],
    ['127.0.0.1:8001=0', "entry '127.0.0.1:8001=0' is not address=MB with a positive MB"],
    ['127.0.0.1:8001=5,127.0.0.1:8001=6', "backend '127.0.0.1:8001' is listed twice"],
    ['host-z:8001=100', "names 'host-z:8001', which KSERVE_ENDPOINTS does not list"],
  ])('refuses KSERVE_BACKEND_BUDGETS_MB=%s, naming the variable', (value, reason) => {
    expect(() => loadCoordinatorConfig({ KSERVE_BACKEND_BUDGETS_MB: value })).toThrow(
      /KSERVE_BACKEND_BUDGETS_MB/,
    );
    expect(() => loadCoordinatorConfig({ KSERVE_BACKEND_BUDGETS_MB: value })).toThrow(reason);
  });

  it('refuses a zero rate per copy', () => {
    expect(() => loadCoordinatorConfig({ PLACEMENT_RATE_PER_COPY: '0' })).toThrow(
      /PLACEMENT_RATE_PER_COPY/,
    );
  });
});
