import { UsageError } from './cli-args';
import { MODELS_USAGE, parseModelsArgs } from './generate-models';

describe('npm run models arguments', () => {
  it('defaults to the tiny models in model_repository, building only what is missing', () => {
    expect(parseModelsArgs([])).toEqual({
      size: 'tiny',
      outDir: 'model_repository',
      force: false,
      check: false,
    });
  });

  it('reads every flag', () => {
    expect(parseModelsArgs(['--size', 'small', '--out', '/tmp/m', '--force', '--check'])).toEqual({
      size: 'small',
      outDir: '/tmp/m',
      force: true,
      check: true,
    });
  });

  it('answers help for --help and -h', () => {
    expect(parseModelsArgs(['--help'])).toBe('help');
    expect(parseModelsArgs(['-h'])).toBe('help');
  });

  const refused: [string[], string][] = [
    [['--size', 'huge'], '--size must be tiny or small, got "huge"'],
    [['--size'], "Option '--size <value>' argument missing"],
    [['--sizes', 'small'], "Unknown option '--sizes'"],
    [['--force=no'], "Option '--force' does not take an argument"],
    [['small'], "Unexpected argument 'small'"],
  ];
  it.each(refused)('refuses %j naming the flag, with the usage', (args, why) => {
    const parse = () => parseModelsArgs(args);
    expect(parse).toThrow(UsageError);
    expect(parse).toThrow(why);
    expect(parse).toThrow(`\n${MODELS_USAGE}`);
  });
});
