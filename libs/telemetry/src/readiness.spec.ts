import { runReadiness, type ReadinessCheck } from './readiness';

const check = (
  name: string,
  fn: () => Promise<{ ready: boolean; detail?: string }>,
): ReadinessCheck => ({
  name,
  check: fn,
});

describe('runReadiness', () => {
  it('is ok only when every check is ready', async () => {
    const report = await runReadiness([
      check('a', async () => ({ ready: true })),
      check('b', async () => ({ ready: false, detail: 'no routes' })),
    ]);
    expect(report.status).toBe('unavailable');
    expect(report.checks.b).toEqual({ ready: false, detail: 'no routes' });
    const ok = await runReadiness([check('a', async () => ({ ready: true }))]);
    expect(ok.status).toBe('ok');
  });

  it('turns a throwing check into a failed check with its message', async () => {
    const report = await runReadiness([
      check('redis', async () => {
        throw new Error('ECONNREFUSED');
      }),
    ]);
    expect(report.checks.redis).toEqual({ ready: false, detail: 'ECONNREFUSED' });
  });

  it('fails a hung check after the deadline instead of hanging the probe', async () => {
    const report = await runReadiness([check('hung', () => new Promise(() => undefined))], 50);
    expect(report.status).toBe('unavailable');
    expect(report.checks.hung?.detail).toMatch(/timed out after 50 ms/);
  });
});
