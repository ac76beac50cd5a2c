import { OPERATOR_COMMANDS } from '@mesh/rollout-contract';
import { UsageError } from '../cli-args';
import { ROLLOUT_USAGE, rolloutCommand, statusOptions } from './rollout-cli.command';

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

  it.each(OPERATOR_COMMANDS.filter((c) => c !== 'undo'))(
    '%s ID posts that command to the coordinator',
    async (command) => {
      const lines: string[] = [];
      await expect(rolloutCommand([command, 'ro-1'], (l) => lines.push(l))).resolves.toBe(0);
      expect(calls).toEqual([
        { url: `http://127.0.0.1:8090/v1/rollouts/ro-1/${command}`, method: 'POST' },
      ]);
      expect(lines).toEqual([`ro-1 canary (${command} queued)`]);
      expect(ROLLOUT_USAGE).toContain(`${command} ID`);
    },
  );

  it.each([
    [['undo', 'ro-1'], ''],
    [['undo', 'ro-1', '--force'], '?force=true'],
  ])('%j posts an undo and names the new rollout', async (args, query) => {
    jest.mocked(globalThis.fetch).mockImplementation(async (input, init) => {
      calls.push({
        url: input instanceof Request ? input.url : input.toString(),
        method: init?.method ?? 'GET',
      });
      const view = {
        id: 'ro-2',
        state: 'pending',
        undoOf: 'ro-1',
        finalWeights: [
          { version: 1, weight: 90 },
          { version: 2, weight: 10 },
        ],
      };
      return new Response(JSON.stringify(view), { status: 201 });
    });
    const lines: string[] = [];
    await expect(rolloutCommand(args, (l) => lines.push(l))).resolves.toBe(0);
    expect(calls).toEqual([
      { url: `http://127.0.0.1:8090/v1/rollouts/ro-1/undo${query}`, method: 'POST' },
    ]);
    // One line, the new id first, as `create` prints: scripts take it with `cut -d' ' -f1`.
    expect(lines).toEqual(['ro-2 pending (undo of ro-1: back to v1:90 v2:10)']);
    expect(ROLLOUT_USAGE).toContain('undo ID [--force]');
  });

  const refused: [string[], string][] = [
    [['undo'], 'undo needs a rollout ID'],
    [['undo', 'ro-1', '--hard'], "Unknown option '--hard'"],
    [['pause'], 'pause needs a rollout ID'],
    [['abort', 'ro-1', 'ro-2'], "Unexpected argument 'ro-2'"],
    [['promote', 'ro-1', '--now'], "Unknown option '--now'"],
    [['create'], 'create needs -f plan.yaml'],
    [['create', '-f'], "Option '-f, --file <value>' argument missing"],
    [
      ['create', 'plan.yaml'],
      "Unexpected argument 'plan.yaml'. This command does not take positional arguments",
    ],
    [['list', '--all'], "Unknown option '--all'"],
  ];
  it.each(refused)('refuses %j naming the problem, with the usage (exit 2)', async (args, why) => {
    await expect(rolloutCommand(args)).resolves.toBe(2);
    expect(console.error).toHaveBeenCalledWith(`${why}\n${ROLLOUT_USAGE}`);
    expect(calls).toEqual([]);
  });

  it('refuses an unknown command with the usage', async () => {
    await expect(rolloutCommand(['restart', 'ro-1'])).resolves.toBe(2);
    expect(console.error).toHaveBeenCalledWith(ROLLOUT_USAGE);
    expect(calls).toEqual([]);
  });
});

describe('rollout status --watch', () => {
  const plan = {
    tenant: '*',
    task: 'question-type',
    model: 'question-type-zh',
    toVersion: 2,
    steps: [
      { weight: 50, holdSeconds: 1 },
      { weight: 100, holdSeconds: 1 },
    ],
    bakeSeconds: 1,
    onFailure: 'rollback',
  };
  const entry = (from: string, to: string, step: number, reason: string) => ({
    at: `2026-12-01T18:00:0${step}.000Z`,
    from,
    to,
    step,
    reason,
  });
  const TIMELINE = [
    entry('pending', 'loading', 0, 'loading version 2 on every backend'),
    entry('loading', 'waiting_for_window', 0, 'version 2 ready'),
    entry('waiting_for_window', 'canary', 1, 'step 1: 50% on version 2'),
    entry('canary', 'canary', 2, 'step 1 held: gates passed; step 2: 100% on version 2'),
    entry('canary', 'baking', 2, 'all traffic on version 2'),
    entry('baking', 'completed', 2, 'done'),
  ];
  const view = (state: string, entries: number, weights: [number, number]) => ({
    id: 'ro-1',
    plan,
    state,
    step: TIMELINE[entries - 1]?.step ?? 0,
    weights: [
      { version: 1, weight: weights[0] },
      { version: 2, weight: weights[1] },
    ],
    timeline: TIMELINE.slice(0, entries),
  });

  let answers: (() => Response | Promise<Response>)[];
  let gets: number;
  let lines: string[];
  let sleeps: number[];
  let errors: string[];
  const sleep = async (ms: number) => {
    sleeps.push(ms);
  };
  const json =
    (body: unknown, status = 200) =>
    () =>
      new Response(JSON.stringify(body), { status });

  beforeEach(() => {
    gets = 0;
    lines = [];
    sleeps = [];
    errors = [];
    delete process.env.COORDINATOR_URL;
    jest.spyOn(globalThis, 'fetch').mockImplementation(async () => {
      const next = answers[Math.min(gets, answers.length - 1)]!;
      gets += 1;
      return next();
    });
    jest.spyOn(console, 'error').mockImplementation((line: string) => void errors.push(line));
  });

  afterEach(() => jest.restoreAllMocks());

  it('prints the status, then each new transition once, until the rollout completes (exit 0)', async () => {
    answers = [
      json(view('loading', 1, [90, 10])),
      json(view('loading', 1, [90, 10])),
      json(view('canary', 3, [50, 50])),
      json(view('baking', 5, [0, 100])),
      json(view('completed', 6, [0, 100])),
    ];
    const print = (l: string) => lines.push(l);
    await expect(rolloutCommand(['status', 'ro-1', '--watch'], print, sleep)).resolves.toBe(0);
    expect(gets).toBe(5);
    expect(sleeps).toEqual([2000, 2000, 2000, 2000]);
    const after = lines.slice(lines.indexOf('watching ro-1 (every 2 s, Ctrl-C stops)') + 1);
    expect(after).toEqual([
      '2026-12-01T18:00:00.000Z  loading → waiting_for_window  step 0/2  version 2 ready',
      '2026-12-01T18:00:01.000Z  waiting_for_window → canary  step 1/2  step 1: 50% on version 2',
      '  weights v1:50 v2:50',
      '2026-12-01T18:00:02.000Z  canary → canary  step 2/2  step 1 held: gates passed; step 2: 100% on version 2',
      '2026-12-01T18:00:02.000Z  canary → baking  step 2/2  all traffic on version 2',
      '  weights v1:0 v2:100',
      '2026-12-01T18:00:02.000Z  baking → completed  step 2/2  done',
      'ro-1 completed, weights v1:0 v2:100',
    ]);
    // The first view is printed as `status` prints it, with its timeline table.
    expect(lines[0]).toBe('ro-1  */question-type  question-type-zh → v2');
    expect(lines.some((l) => /^AT +FROM +TO +STEP +REASON/.test(l))).toBe(true);
  });

  it('exits 1 when the rollout ends in another terminal state', async () => {
    answers = [json(view('canary', 3, [50, 50])), json(view('rolled_back', 3, [90, 10]))];
    await expect(
      rolloutCommand(['status', 'ro-1', '--watch', '--interval', '0.5'], () => undefined, sleep),
    ).resolves.toBe(1);
    expect(sleeps).toEqual([500]);
  });

  it('does not poll a rollout that has already ended', async () => {
    answers = [json(view('completed', 6, [0, 100]))];
    await expect(
      rolloutCommand(['status', 'ro-1', '--watch'], (l) => lines.push(l), sleep),
    ).resolves.toBe(0);
    expect(gets).toBe(1);
    expect(sleeps).toEqual([]);
    expect(lines.at(-1)).toBe('ro-1 completed, weights v1:0 v2:100');
  });

  it('polls again when the coordinator cannot be reached for a while', async () => {
    answers = [
      json(view('canary', 3, [50, 50])),
      () => Promise.reject(new TypeError('fetch failed')),
      () => Promise.reject(new TypeError('fetch failed')),
      json(view('completed', 6, [0, 100])),
    ];
    await expect(
      rolloutCommand(['status', 'ro-1', '--watch'], (l) => lines.push(l), sleep),
    ).resolves.toBe(0);
    expect(lines.filter((l) => l.startsWith('coordinator unreachable'))).toEqual([
      'coordinator unreachable (fetch failed); polling again',
    ]);
  });

  it('stops at an HTTP error while watching', async () => {
    answers = [
      json(view('canary', 3, [50, 50])),
      json({ error: { code: 'ROLLOUT_NOT_FOUND', message: 'no rollout ro-1' } }, 404),
    ];
    await expect(
      rolloutCommand(['status', 'ro-1', '--watch'], () => undefined, sleep),
    ).rejects.toThrow(/404/);
  });

  const accepted: [string[], ReturnType<typeof statusOptions>][] = [
    [['ro-1'], { id: 'ro-1', watch: false, intervalMs: 2000 }],
    [['ro-1', '--watch'], { id: 'ro-1', watch: true, intervalMs: 2000 }],
    [['--watch', 'ro-1', '--interval', '0.25'], { id: 'ro-1', watch: true, intervalMs: 250 }],
    [['ro-1', '-w'], { id: 'ro-1', watch: true, intervalMs: 2000 }],
  ];
  it.each(accepted)('reads status options %j', (args, expected) => {
    expect(statusOptions(args)).toEqual(expected);
  });

  const refused: [string[], string][] = [
    [[], 'status needs a rollout ID'],
    [['--watch'], 'status needs a rollout ID'],
    [['ro-1', 'ro-2'], "Unexpected argument 'ro-2'"],
    [['ro-1', '--interval', '1'], '--interval goes with --watch'],
    [
      ['ro-1', '--watch', '--interval', 'soon'],
      '--interval must be a positive number of seconds (got "soon")',
    ],
    [
      ['ro-1', '--watch', '--interval', '0'],
      '--interval must be a positive number of seconds (got "0")',
    ],
    [['ro-1', '--follow'], "Unknown option '--follow'"],
    [['ro-1', '--watch', '--interval'], "Option '--interval <value>' argument missing"],
  ];
  it.each(refused)('refuses status options %j, naming the problem (exit 2)', async (args, why) => {
    expect(() => statusOptions(args)).toThrow(new UsageError(why));
    answers = [json(view('canary', 3, [50, 50]))];
    await expect(rolloutCommand(['status', ...args], () => undefined, sleep)).resolves.toBe(2);
    expect(errors).toEqual([`${why}\n${ROLLOUT_USAGE}`]);
    expect(gets).toBe(0);
  });
});
