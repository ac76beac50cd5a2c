import { UsageError } from './cli-args';
import { JOB_USAGE, parseJobArgs, runJobCommand } from './job-cli';

describe('mesh job arguments', () => {
  it('reads a submit with every flag', () => {
    expect(
      parseJobArgs([
        'submit',
        '--task',
        'sentiment',
        '--file',
        'items.ndjson',
        '--idempotency-key',
        'k1',
        '--no-wait',
      ]),
    ).toEqual({
      sub: 'submit',
      task: 'sentiment',
      file: 'items.ndjson',
      idempotencyKey: 'k1',
      wait: false,
    });
  });

  it('waits for a submitted job unless --no-wait', () => {
    expect(parseJobArgs(['submit', '--file', 'f', '--task', 't'])).toEqual({
      sub: 'submit',
      task: 't',
      file: 'f',
      wait: true,
    });
  });

  it('reads status, cancel, results [--from N] and list [--state S]', () => {
    expect(parseJobArgs(['status', 'j1'])).toEqual({ sub: 'status', id: 'j1' });
    expect(parseJobArgs(['cancel', 'j1'])).toEqual({ sub: 'cancel', id: 'j1' });
    expect(parseJobArgs(['results', 'j1'])).toEqual({ sub: 'results', id: 'j1' });
    expect(parseJobArgs(['results', 'j1', '--from', '100'])).toEqual({
      sub: 'results',
      id: 'j1',
      from: '100',
    });
    expect(parseJobArgs(['list'])).toEqual({ sub: 'list' });
    expect(parseJobArgs(['list', '--state', 'running'])).toEqual({ sub: 'list', state: 'running' });
  });

  it('leaves another command to the caller', () => {
    expect(parseJobArgs(['restart', 'j1'])).toBeUndefined();
    expect(parseJobArgs([])).toBeUndefined();
  });

  const refused: [string[], string][] = [
    [['submit', '--file', 'f'], 'submit needs --task'],
    [['submit', '--task', 't'], 'submit needs --file'],
    [['submit', '--task', 't', '--file'], "Option '--file <value>' argument missing"],
    [['submit', '--task', 't', '--file', 'f', '--wait'], "Unknown option '--wait'"],
    [['status'], 'status needs a job ID'],
    [['cancel', 'j1', 'j2'], "Unexpected argument 'j2'"],
    [['results', 'j1', '--form', '3'], "Unknown option '--form'"],
    [['list', '--state'], "Option '--state <value>' argument missing"],
  ];
  it.each(refused)('refuses %j naming the problem', (args, why) => {
    expect(() => parseJobArgs(args)).toThrow(new UsageError(why));
  });
});

describe('runJobCommand', () => {
  const savedKey = process.env.MESH_API_KEY;
  let errors: string[];

  beforeEach(() => {
    errors = [];
    process.env.MESH_API_KEY = 'acme-demo-key';
    jest.spyOn(console, 'error').mockImplementation((line: string) => void errors.push(line));
    jest.spyOn(globalThis, 'fetch').mockRejectedValue(new Error('no request expected'));
  });

  afterEach(() => {
    jest.restoreAllMocks();
    if (savedKey === undefined) delete process.env.MESH_API_KEY;
    else process.env.MESH_API_KEY = savedKey;
  });

  it('exits 2 with the problem and the usage for a bad command line, sending nothing', async () => {
    await expect(runJobCommand(['status', 'j1', '--verbose'])).resolves.toBe(2);
    expect(errors).toEqual([`Unknown option '--verbose'\n${JOB_USAGE}`]);
    expect(fetch).not.toHaveBeenCalled();
  });

  it('exits 2 with the usage for an unknown command', async () => {
    await expect(runJobCommand(['restart'])).resolves.toBe(2);
    expect(errors).toEqual([JOB_USAGE]);
  });

  it('exits 2 naming MESH_API_KEY when it is not set', async () => {
    delete process.env.MESH_API_KEY;
    await expect(runJobCommand(['list'])).resolves.toBe(2);
    expect(errors).toEqual(['set MESH_API_KEY to your tenant key (e.g. acme-demo-key locally)']);
  });
});
