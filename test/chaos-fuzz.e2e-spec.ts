import { fuzzScenario } from '../bench/chaos/scenarios/fuzz.scenario';
import { chaosContext, failedChecks } from './support/chaos-context';

/**
 * The fast subset of the chaos suite's fuzz scenario: its own redis-server, host and router,
 * 1,000 fuzzed requests per API (router HTTP predict and batch, router gRPC Predict,
 * PredictBatch and PredictStream, where a request is a stream of up to four messages, host KServe
 * HTTP infer and gRPC ModelInfer). Each run draws a new seed, which a
 * failure prints; CHAOS_FUZZ_SEED replays it.
 */
const ctx = chaosContext('fuzz');

afterAll(() => ctx.cleanup());

describe('chaos: fuzzing every inference API', () => {
  it('answers every fuzzed request with a 2xx or a documented 4xx and keeps both processes up', async () => {
    const result = await fuzzScenario.run(ctx);
    expect({ seed: result.figures.seed, failed: failedChecks(result) }).toEqual({
      seed: result.figures.seed,
      failed: [],
    });
    expect(result.requests).toMatchObject({ sent: 7000, failed: 0 });
    expect(result.passed).toBe(true);
  }, 180_000);
});
