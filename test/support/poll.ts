/** Polls `fn` until it returns a non-undefined value or the deadline passes. */
export async function pollUntil<T>(
  fn: () => Promise<T | undefined> | T | undefined,
  { timeoutMs = 10_000, intervalMs = 50, what = 'condition' } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await fn();
      if (value !== undefined) return value;
    } catch (err: unknown) {
      lastError = err;
    }
    if (Date.now() > deadline) {
      const suffix = lastError instanceof Error ? ` (last error: ${lastError.message})` : '';
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${suffix}`);
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
