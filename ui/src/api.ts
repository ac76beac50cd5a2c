/** An HTTP error answer of the coordinator (`{error: {code, message}}`). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** One line of a view's live stream (see the coordinator's dashboard feeds). */
export type FeedLine =
  { view: string; at: number; data: unknown } | { view: string; at: number; error: string };

/**
 * The coordinator's API with the admin key. The key lives in this object only — never in
 * storage — so it is gone when the tab closes.
 */
export class Api {
  constructor(private readonly key: string) {}

  async json<T>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await fetch(path, {
      method,
      headers: {
        authorization: `Bearer ${this.key}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    const parsed = text ? (JSON.parse(text) as unknown) : undefined;
    if (!res.ok) {
      const err = (parsed as { error?: { code?: string; message?: string } } | undefined)?.error;
      throw new ApiError(res.status, err?.code ?? 'HTTP', err?.message ?? `HTTP ${res.status}`);
    }
    return parsed as T;
  }

  /**
   * Follows a view's NDJSON stream (fetch + ReadableStream: EventSource cannot send the
   * Authorization header), reconnecting after a drop until `signal` aborts.
   */
  async follow(
    path: string,
    onLine: (line: FeedLine) => void,
    onDown: (why: string) => void,
    signal: AbortSignal,
  ): Promise<void> {
    while (!signal.aborted) {
      try {
        const res = await fetch(path, { headers: { authorization: `Bearer ${this.key}` }, signal });
        if (!res.ok || !res.body) throw new Error(`HTTP ${res.status}`);
        const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
        let buf = '';
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buf += value;
          let i: number;
          while ((i = buf.indexOf('\n')) >= 0) {
            const line = buf.slice(0, i).trim();
            buf = buf.slice(i + 1);
            if (line) onLine(JSON.parse(line) as FeedLine);
          }
        }
        if (!signal.aborted) onDown('stream ended');
      } catch (err: unknown) {
        if (signal.aborted) return;
        onDown(err instanceof Error ? err.message : String(err));
      }
      await new Promise((r) => setTimeout(r, 2000));
    }
  }

  /** Saves an authenticated download through a temporary object URL. */
  async download(path: string, filename: string): Promise<void> {
    const res = await fetch(path, { headers: { authorization: `Bearer ${this.key}` } });
    if (!res.ok) throw new ApiError(res.status, 'HTTP', `download failed: HTTP ${res.status}`);
    const url = URL.createObjectURL(await res.blob());
    const a = Object.assign(document.createElement('a'), { href: url, download: filename });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  }
}
