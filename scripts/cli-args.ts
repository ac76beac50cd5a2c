/**
 * The one way the repository's command-line entries read their arguments: `node:util` parseArgs
 * in strict mode, its errors turned into a UsageError whose message names the flag or argument,
 * so every CLI reports a bad command line the same way (and exits 2 unless it had another code).
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';

/** The exit code of a command line a CLI cannot run, unless the CLI always had another one. */
export const USAGE_EXIT_CODE = 2;

/** Arguments that are not a valid command line; the message says which and why. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

type Config = Omit<ParseArgsConfig, 'args' | 'strict'> & { args: string[] };

/**
 * `parseArgs` over `config.args`, strict: an unknown option, a missing or an unexpected value,
 * or a positional where none is allowed throws a UsageError naming it.
 */
export function parseCliArgs<const T extends Config>(
  config: T,
): ReturnType<typeof parseArgs<T & { strict: true }>> {
  try {
    return parseArgs({ ...config, strict: true });
  } catch (err: unknown) {
    throw new UsageError(usageMessage(err));
  }
}

/** parseArgs's own sentence (it quotes the option), without its advice on `--` positionals. */
function usageMessage(err: unknown): string {
  // Not `instanceof Error`: node's own errors come from another realm under a test runner.
  const raw = (err as { message?: unknown } | undefined)?.message;
  const message = typeof raw === 'string' ? raw : String(err);
  return message.split('. To specify a positional argument')[0] ?? message;
}

/**
 * The values of a repeatable `--<flag> NAME=value` option as a record (the first `=` splits);
 * a value without a name throws a UsageError naming the flag.
 */
export function keyValueOption(values: string[] | undefined, flag: string): Record<string, string> {
  return Object.fromEntries(
    (values ?? []).map((kv) => {
      const eq = kv.indexOf('=');
      if (eq <= 0) throw new UsageError(`--${flag} wants NAME=value (got '${kv}')`);
      return [kv.slice(0, eq), kv.slice(eq + 1)] as const;
    }),
  );
}
