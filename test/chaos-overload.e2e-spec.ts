import { overloadScenario } from '../bench/chaos/scenarios/overload.scenario';
import type { ScenarioResult } from '../bench/chaos/scenario';
import { chaosContext, failedChecks } from './support/chaos-context';

/**
 * The chaos suite's overload scenario in its quick form: twice the measured saturation, half
 * HTTP and half gRPC, as a tenant with an in-flight cap of 16. Asserts status classes, retry
 * hints and the bounded queue; latency is reported by `npm run chaos`, never asserted.
 */
const ctx = chaosContext('overload');
let result: ScenarioResult;

beforeAll(async () => {
  result = await overloadScenario.run(ctx);
}, 180_000);

afterAll(() => ctx.cleanup());

describe('chaos: overload at 2x saturation', () => {
  it('refuses only with 429 + Retry-After and RESOURCE_EXHAUSTED + grpc-retry-pushback-ms', () => {
    expect(result.requests.failed).toBe(0);
    const classes = Object.keys(result.requests.failedDetail);
    expect(classes.length).toBeGreaterThan(0);
    for (const cls of classes) {
      expect(cls).toMatch(
        /^(429 (TOO_MANY_IN_FLIGHT|RATE_LIMITED)|grpc (RESOURCE_EXHAUSTED|UNAVAILABLE)\b)/,
      );
    }
  });

  it('keeps the host queue within the admission cap and every process within its budget', () => {
    expect(failedChecks(result)).toEqual([]);
    expect(Number(result.figures.maxHostPending)).toBeLessThanOrEqual(16);
  });
});
