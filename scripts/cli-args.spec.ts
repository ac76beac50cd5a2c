import { UsageError, keyValueOption, parseCliArgs } from './cli-args';

const options = {
  size: { type: 'string' },
  force: { type: 'boolean', short: 'f' },
  text: { type: 'string', multiple: true },
} as const;

describe('parseCliArgs', () => {
  it('reads flags, repeated flags and positionals as node:util parseArgs does', () => {
    const { values, positionals } = parseCliArgs({
      args: ['add', '--size', 'small', '-f', '--text', 'a', '--text=b'],
      options,
      allowPositionals: true,
    });
    expect(values).toEqual({ size: 'small', force: true, text: ['a', 'b'] });
    expect(positionals).toEqual(['add']);
  });

  it('gives defaults for flags not given', () => {
    const { values } = parseCliArgs({
      args: [],
      options: { out: { type: 'string', default: 'model_repository' } },
    });
    expect(values.out).toBe('model_repository');
  });

  it.each([
    [['--sise', 'small'], "Unknown option '--sise'"],
    [['--size'], "Option '--size <value>' argument missing"],
    [['--force=yes'], "Option '-f, --force' does not take an argument"],
    [['extra'], "Unexpected argument 'extra'. This command does not take positional arguments"],
  ])('refuses %j with a UsageError naming it', (args, message) => {
    const parse = () => parseCliArgs({ args, options });
    expect(parse).toThrow(UsageError);
    expect(parse).toThrow(message);
  });

  it('leaves out parseArgs advice on how to pass a positional that starts with a dash', () => {
    let error: unknown;
    try {
      parseCliArgs({ args: ['-x'], options, allowPositionals: true });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toBe("Unknown option '-x'");
  });
});

describe('keyValueOption', () => {
  it('reads repeated NAME=value into a record, splitting at the first =', () => {
    expect(keyValueOption(['A=1', 'B=x=y', 'C='], 'env')).toEqual({ A: '1', B: 'x=y', C: '' });
    expect(keyValueOption(undefined, 'env')).toEqual({});
  });

  it.each(['A', '=1'])('refuses %p, naming the flag', (bad) => {
    expect(() => keyValueOption([bad], 'baseline-env')).toThrow(UsageError);
    expect(() => keyValueOption([bad], 'baseline-env')).toThrow(
      `--baseline-env wants NAME=value (got '${bad}')`,
    );
  });
});
