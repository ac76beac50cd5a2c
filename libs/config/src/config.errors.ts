import { bulletList, countOf, MeshError } from '@mesh/errors';

/** One problem with one environment variable. */
export interface ConfigIssue {
  variable: string;
  reason: string;
}

/** Thrown at boot when the environment is invalid; lists every bad variable at once. */
export class ConfigError extends MeshError {
  readonly code = 'CONFIG_INVALID';

  constructor(
    readonly service: string,
    readonly issues: readonly ConfigIssue[],
  ) {
    super(
      `${service}: invalid configuration (${countOf(issues.length, 'problem')}):\n` +
        bulletList(issues.map((i) => `${i.variable}: ${i.reason}`)),
    );
  }
}
