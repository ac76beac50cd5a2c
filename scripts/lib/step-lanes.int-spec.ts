// eslint-disable-next-line @typescript-eslint/no-require-imports
const { runLanes } = require('./step-lanes') as {
  runLanes: (
    lanes: { name: string; cmd: string; args: string[] }[][],
    options: { cwd: string },
  ) => Promise<string[]>;
};

/** A step that prints `lines` one by one, a few ms apart, then exits with `code`. */
function step(name: string, lines: string[], code = 0) {
  const script = `
    const lines = ${JSON.stringify(lines)};
    let i = 0;
    const next = () => {
      if (i === lines.length) process.exit(${code});
      (i % 2 ? process.stderr : process.stdout).write(lines[i++] + '\\n');
      setTimeout(next, 5);
    };
    next();`;
  return { name, cmd: process.execPath, args: ['-e', script] };
}

describe('runLanes', () => {
  let printed: string[];
  beforeEach(() => {
    printed = [];
    jest.spyOn(console, 'log').mockImplementation((s: string) => void printed.push(`${s}\n`));
    jest.spyOn(process.stdout, 'write').mockImplementation((s: string | Uint8Array) => {
      printed.push(String(s));
      return true;
    });
  });
  afterEach(() => jest.restoreAllMocks());

  it('runs every step, names the failed ones, and prints each step whole', async () => {
    const failed = await runLanes(
      [
        [step('a1', ['a1-1', 'a1-2', 'a1-3'], 3), step('a2', ['a2-1'])],
        [step('b1', ['b1-1', 'b1-2', 'b1-3', 'b1-4'])],
      ],
      { cwd: __dirname },
    );
    expect(failed).toEqual(['a1']);
    // Each step's block: its header, then its own lines and nobody else's. (A step's stdout and
    // stderr are two pipes, so the order between them is not kept; the lines stay whole.)
    const blocks = new Map(
      printed
        .join('')
        .split('\n> ')
        .filter((b) => b.length > 0)
        .map((b) => {
          const [header = '', ...lines] = b.split('\n').filter((l) => l.length > 0);
          return [header.split(' ')[0], { header, lines: lines.sort() }] as const;
        }),
    );
    expect([...blocks.keys()].sort()).toEqual(['a1', 'a2', 'b1']);
    expect(blocks.get('a1')).toEqual({
      header: expect.stringMatching(/^a1 \([0-9.]+ s, exit code 3\)$/),
      lines: ['a1-1', 'a1-2', 'a1-3'],
    });
    // The step after a failed one still ran.
    expect(blocks.get('a2')).toEqual({
      header: expect.stringMatching(/^a2 \([0-9.]+ s\)$/),
      lines: ['a2-1'],
    });
    expect(blocks.get('b1')?.lines).toEqual(['b1-1', 'b1-2', 'b1-3', 'b1-4']);
  });

  it('reports a command that cannot start as a failed step', async () => {
    const failed = await runLanes(
      [[{ name: 'missing', cmd: '/nonexistent/tool', args: [] }, step('after', ['ran'])]],
      { cwd: __dirname },
    );
    expect(failed).toEqual(['missing']);
    const text = printed.join('');
    expect(text).toMatch(/> missing \([0-9.]+ s, could not start: .*ENOENT/);
    expect(text.match(/> missing /g)).toHaveLength(1);
    expect(text).toContain('ran');
  });
});
