import { CronExpressionParser } from 'cron-parser';
import type { RolloutWindowSpec } from '@mesh/rollout-contract';

/**
 * A recurring window: it opens at each cron firing (read in the plan's time zone) and stays
 * open `durationMinutes`. Pure over the instant it is asked about, so tests use any clock.
 */
export class RolloutWindow {
  constructor(private readonly spec: RolloutWindowSpec) {}

  /** The message of why the spec is unusable, or undefined when it parses. */
  static problem(spec: RolloutWindowSpec): { path: string; message: string } | undefined {
    try {
      new Intl.DateTimeFormat('en-US', { timeZone: spec.timezone });
    } catch {
      return { path: 'window.timezone', message: `unknown time zone '${spec.timezone}'` };
    }
    try {
      CronExpressionParser.parse(spec.cron, { tz: spec.timezone, strict: false });
    } catch (err: unknown) {
      const message = err instanceof Error ? err.message : String(err);
      return { path: 'window.cron', message: `cannot parse '${spec.cron}': ${message}` };
    }
    return undefined;
  }

  /** True when `nowMs` lies in [firing, firing + duration) of the latest firing at or before it. */
  isOpen(nowMs: number): boolean {
    const opened = this.lastOpening(nowMs);
    return opened !== undefined && nowMs - opened < this.spec.durationMinutes * 60_000;
  }

  /** Unix ms of the next firing strictly after `nowMs`. */
  nextOpening(nowMs: number): number {
    return CronExpressionParser.parse(this.spec.cron, {
      tz: this.spec.timezone,
      currentDate: new Date(nowMs),
    })
      .next()
      .getTime();
  }

  private lastOpening(nowMs: number): number | undefined {
    // prev() is strictly before currentDate; +1 ms lets a firing at exactly nowMs count.
    const expr = CronExpressionParser.parse(this.spec.cron, {
      tz: this.spec.timezone,
      currentDate: new Date(nowMs + 1),
    });
    try {
      return expr.prev().getTime();
    } catch {
      return undefined;
    }
  }
}
