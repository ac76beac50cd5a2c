import { runScenarios } from '../bench/chaos/chaos';
import { fuzzScenario } from '../bench/chaos/scenarios/fuzz.scenario';

// The fast subset of the chaos suite's fuzz scenario: its own redis-server, host and router,
// 1,000 fuzzed requests per API. Each run draws a new seed; CHAOS_FUZZ_SEED replays one.
describe('fuzzing every inference API (chaos scenario, quick)', () => {
  it('answers every fuzzed request with a 2xx or a documented 4xx and keeps both processes up', async () => {
    const [result] = await runScenarios([fuzzScenario], true);
    expect(result).toBeDefined();
    const outcome = { passed: result!.passed, notes: result!.notes, seed: result!.figures.seed };
    expect(outcome).toEqual({ passed: true, notes: undefined, seed: result!.figures.seed });
    expect(result!.requests).toMatchObject({ sent: 6000, failed: 0 });
  }, 180_000);
});
