import { CronExpressionParser } from 'cron-parser';
import type { RolloutWindowSpec } from '@mesh/rollout-contract';
import type { RolloutIssue } from './rollout.errors';

/**
 * A recurring window: it opens at each cron firing (read in the plan's time zone) and stays
 * open `durationMinutes`. Pure over the instant it is asked about, so tests use any clock.
 */
export class RolloutWindow {
  constructor(private readonly spec: RolloutWindowSpec) {}

  /**
   * Why the window's zone and cron are unusable, each on its own: a bad zone does not hide a
   * bad cron (the cron's syntax is checked in UTC then), so a plan is fixed in one round.
   * Either may be absent when the plan's shape is already wrong there.
   */
  static problems(spec: { cron?: string; timezone?: string }): RolloutIssue[] {
    const issues: RolloutIssue[] = [];
    let zone = spec.timezone;
    if (zone !== undefined && !isTimeZone(zone)) {
      issues.push({ path: 'window.timezone', message: `unknown time zone '${zone}'` });
      zone = 'UTC';
    }
    if (spec.cron !== undefined) {
      try {
        CronExpressionParser.parse(spec.cron, { tz: zone ?? 'UTC', strict: false });
      } catch (err: unknown) {
        const message = err instanceof Error ? err.message : String(err);
        issues.push({ path: 'window.cron', message: `cannot parse '${spec.cron}': ${message}` });
      }
    }
    return issues;
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

function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}
