import { runScenarios } from '../bench/chaos/chaos';
import { isolationScenario } from '../bench/chaos/scenarios/isolation.scenario';

// The chaos suite's isolation scenario on its own redis-server, host, router and worker.
describe('tenant isolation (chaos scenario)', () => {
  it("never lets one tenant read, cancel or infer through another's routes, jobs or results", async () => {
    const [result] = await runScenarios([isolationScenario], true);
    expect(result).toBeDefined();
    expect(result!.notes).toBeUndefined();
    expect(result!.passed).toBe(true);
    expect(result!.figures.breaches).toBe(0);
  }, 180_000);
});
