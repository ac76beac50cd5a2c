import { UsageError } from './cli-args';
import { parseTableCommand } from './mesh';

describe('mesh routing-table commands', () => {
  it('reads reseed and show, which take nothing', () => {
    expect(parseTableCommand(['reseed'])).toEqual({ command: 'reseed' });
    expect(parseTableCommand(['show'])).toEqual({ command: 'show' });
  });

  it('reads audit with its count, 20 without one or with one that is not a count', () => {
    expect(parseTableCommand(['audit', '5'])).toEqual({ command: 'audit', count: 5 });
    expect(parseTableCommand(['audit'])).toEqual({ command: 'audit', count: 20 });
    expect(parseTableCommand(['audit', 'all'])).toEqual({ command: 'audit', count: 20 });
    expect(parseTableCommand(['audit', '0'])).toEqual({ command: 'audit', count: 20 });
  });

  it('leaves any other command to the usage', () => {
    expect(parseTableCommand([])).toBeUndefined();
    expect(parseTableCommand(['reseeed'])).toBeUndefined();
  });

  const refused: [string[], string][] = [
    [['reseed', '--force'], "Unknown option '--force'"],
    [
      ['show', 'table'],
      "Unexpected argument 'table'. This command does not take positional arguments",
    ],
    [['audit', '5', '6'], "Unexpected argument '6'"],
    [['audit', '--last', '5'], "Unknown option '--last'"],
  ];
  it.each(refused)('refuses %j naming the problem', (args, why) => {
    expect(() => parseTableCommand(args)).toThrow(new UsageError(why));
  });
});
