import { isolationScenario } from '../bench/chaos/scenarios/isolation.scenario';
import { chaosContext, failedChecks } from './support/chaos-context';

/**
 * The chaos suite's isolation scenario on its own redis-server, host, router and worker: two
 * tenants against each other's jobs (HTTP and gRPC, real and guessed ids), tasks and the admin
 * API, with controls that each tenant reaches its own.
 */
const ctx = chaosContext('isolation');

afterAll(() => ctx.cleanup());

describe('chaos: tenant isolation', () => {
  it("never lets one tenant read, cancel or infer through another's routes, jobs or results", async () => {
    const result = await isolationScenario.run(ctx);
    expect(failedChecks(result)).toEqual([]);
    expect(result.figures.breaches).toBe(0);
    expect(result.passed).toBe(true);
  }, 180_000);
});
