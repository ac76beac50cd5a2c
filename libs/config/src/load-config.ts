import { z } from 'zod';
import { ConfigError, type ConfigIssue } from './config.errors';

/**
 * Validates `env` against `shape` and returns the typed result. Every bad variable is
 * reported in one ConfigError so an operator fixes them all in one go. `checks` looks at the
 * valid result for problems spanning variables (e.g. a certificate without its key).
 */
export function loadConfig<S extends z.ZodRawShape>(
  service: string,
  shape: S,
  env: NodeJS.ProcessEnv = process.env,
  checks?: (config: z.infer<z.ZodObject<S>>) => ConfigIssue[],
): z.infer<z.ZodObject<S>> {
  const input: Record<string, unknown> = {};
  for (const key of Object.keys(shape)) {
    const raw = env[key];
    // An empty variable means "use the default", as in most twelve-factor tooling.
    input[key] = raw === undefined || raw === '' ? undefined : raw;
  }
  const result = z.object(shape).safeParse(input);
  if (result.success) {
    const problems = checks?.(result.data) ?? [];
    if (problems.length > 0) throw new ConfigError(service, problems);
    return result.data;
  }
  const issues: ConfigIssue[] = result.error.issues.map((i) => ({
    variable: i.path.join('.') || '(root)',
    reason: `${i.message} (got ${JSON.stringify(input[String(i.path[0])])})`,
  }));
  throw new ConfigError(service, issues);
}
