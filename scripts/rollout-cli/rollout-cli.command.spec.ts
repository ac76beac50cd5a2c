import { OPERATOR_COMMANDS } from '@mesh/rollout-contract';
import { ROLLOUT_USAGE, rolloutCommand } from './rollout-cli.command';

describe('rollout CLI commands', () => {
  let calls: { url: string; method: string }[];
  const savedUrl = process.env.COORDINATOR_URL;

  beforeEach(() => {
    calls = [];
    delete process.env.COORDINATOR_URL; // the default, http://127.0.0.1:8090
    jest.spyOn(globalThis, 'fetch').mockImplementation(async (input, init) => {
      const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
      calls.push({ url, method: init?.method ?? 'GET' });
      return new Response(JSON.stringify({ id: 'ro-1', state: 'canary' }), { status: 202 });
    });
    jest.spyOn(console, 'error').mockImplementation(() => undefined);
  });

  afterEach(() => {
    jest.restoreAllMocks();
    if (savedUrl !== undefined) process.env.COORDINATOR_URL = savedUrl;
  });

  it.each(OPERATOR_COMMANDS)('%s ID posts that command to the coordinator', async (command) => {
    const lines: string[] = [];
    await expect(rolloutCommand([command, 'ro-1'], (l) => lines.push(l))).resolves.toBe(0);
    expect(calls).toEqual([
      { url: `http://127.0.0.1:8090/v1/rollouts/ro-1/${command}`, method: 'POST' },
    ]);
    expect(lines).toEqual([`ro-1 canary (${command} queued)`]);
    expect(ROLLOUT_USAGE).toContain(`${command} ID`);
  });

  it('refuses an unknown command, or a command without an id, with the usage', async () => {
    await expect(rolloutCommand(['restart', 'ro-1'])).resolves.toBe(2);
    await expect(rolloutCommand(['pause'])).resolves.toBe(2);
    expect(calls).toEqual([]);
  });
});
