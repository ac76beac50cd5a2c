/** Outcome of one readiness check; `detail` explains a failure to an operator. */
export interface ReadinessResult {
  ready: boolean;
  detail?: string;
}

/** Something an app must have before it takes traffic (Redis reachable, routes loaded, ...). */
export interface ReadinessCheck {
  readonly name: string;
  check(): Promise<ReadinessResult>;
}

export interface ReadinessReport {
  status: 'ok' | 'unavailable';
  checks: Record<string, ReadinessResult>;
}

/** Runs all checks concurrently, each under a deadline, so one hung dependency cannot hang the probe. */
export async function runReadiness(
  checks: readonly ReadinessCheck[],
  timeoutMs = 2000,
): Promise<ReadinessReport> {
  const entries = await Promise.all(
    checks.map(async (c): Promise<[string, ReadinessResult]> => {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<ReadinessResult>((resolve) => {
        timer = setTimeout(
          () => resolve({ ready: false, detail: `timed out after ${timeoutMs} ms` }),
          timeoutMs,
        );
      });
      try {
        const result = await Promise.race([c.check(), timeout]);
        return [c.name, result];
      } catch (err: unknown) {
        return [c.name, { ready: false, detail: err instanceof Error ? err.message : String(err) }];
      } finally {
        clearTimeout(timer);
      }
    }),
  );
  const checksOut = Object.fromEntries(entries);
  const ready = entries.every(([, r]) => r.ready);
  return { status: ready ? 'ok' : 'unavailable', checks: checksOut };
}
