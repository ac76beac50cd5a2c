import { runScenarios } from '../bench/chaos/chaos';
import { clientsScenario } from '../bench/chaos/scenarios/clients.scenario';

// The chaos suite's slow-and-broken-clients scenario on its own redis-server, host and router.
describe('slow and broken clients (chaos scenario, quick)', () => {
  it('cuts off slowloris connections, keeps serving, and never runs a request whose caller left', async () => {
    const [result] = await runScenarios([clientsScenario], true);
    expect(result).toBeDefined();
    expect(result!.notes).toBeUndefined();
    expect(result!.passed).toBe(true);
  }, 180_000);
});
