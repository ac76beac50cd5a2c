import { clientsScenario } from '../bench/chaos/scenarios/clients.scenario';
import { chaosContext, failedChecks } from './support/chaos-context';

/**
 * The chaos suite's slow-and-broken-clients scenario on its own redis-server, host and router:
 * slowloris connections are cut off (408) while normal traffic is served and descriptors come
 * back; callers that leave (gRPC cancel, closed HTTP connections, directly and through the
 * router) are dropped by the host before they run, as its statistics and metrics show.
 */
const ctx = chaosContext('clients');

afterAll(() => ctx.cleanup());

describe('chaos: slow and broken clients', () => {
  it('cuts off slow clients, keeps serving, and never runs a queued request whose caller left', async () => {
    const result = await clientsScenario.run(ctx);
    expect(failedChecks(result)).toEqual([]);
    expect(result.passed).toBe(true);
  }, 180_000);
});
