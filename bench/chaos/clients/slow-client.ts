import { readdirSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { sleep, waitFor } from '../cluster';

/** How one slow connection ended. */
export interface SlowEnd {
  /** True when the server closed it (the client never does until `stop`). */
  closedByServer: boolean;
  /** From opening the connection until it closed. */
  afterMs: number;
  /** The status the server answered with before closing, if any (e.g. 408). */
  status?: number;
}

export interface SlowClient {
  ended: Promise<SlowEnd>;
  /** Closes the connection from the client side (when the server never did). */
  stop(): void;
}

export type SlowKind = 'headers' | 'body';

/**
 * A slowloris client: `headers` sends a request line and then one more header line every
 * `trickleMs`, never ending the headers; `body` sends complete headers announcing a body and
 * then one byte of it every `trickleMs`. Either holds a connection (and, on the server, a
 * parser and buffers) for as long as the server lets it.
 */
export function slowClient(
  base: string,
  path: string,
  kind: SlowKind,
  trickleMs: number,
): SlowClient {
  const url = new URL(base);
  const socket: Socket = connect(Number(url.port), url.hostname);
  const started = Date.now();
  let stoppedByUs = false;
  let reply = '';
  let timer: NodeJS.Timeout | undefined;
  socket.on('data', (d: Buffer) => (reply += d.toString('latin1')));
  socket.on('error', () => undefined);
  socket.on('connect', () => {
    const head = `POST ${path} HTTP/1.1\r\nhost: ${url.host}\r\ncontent-type: application/json\r\n`;
    if (kind === 'headers') {
      socket.write(head);
      let n = 0;
      timer = setInterval(() => socket.write(`x-slow-${n++}: 1\r\n`), trickleMs);
    } else {
      socket.write(`${head}content-length: 100000\r\n\r\n{"task":"`);
      timer = setInterval(() => socket.write('a'), trickleMs);
    }
  });
  const ended = new Promise<SlowEnd>((resolve) =>
    socket.on('close', () => {
      clearInterval(timer);
      const status = /^HTTP\/1\.[01] (\d{3})/.exec(reply)?.[1];
      resolve({
        closedByServer: !stoppedByUs,
        afterMs: Date.now() - started,
        ...(status ? { status: Number(status) } : {}),
      });
    }),
  );
  return {
    ended,
    stop: () => {
      if (socket.destroyed) return;
      stoppedByUs = true;
      socket.destroy();
    },
  };
}

/** Open file descriptors of a process (its sockets included), from /proc; 0 when it is gone. */
export function fdCount(pid: number): number {
  try {
    return readdirSync(`/proc/${pid}/fd`).length;
  } catch {
    return 0;
  }
}

export interface SlowRun {
  ends: SlowEnd[];
  fdsBefore: number;
  fdsPeak: number;
  fdsAfter: number;
}

/** `perKind` slow-headers and slow-body connections against one server; waits until all end. */
export async function slowloris(
  base: string,
  path: string,
  pid: number,
  perKind: number,
  waitMs: number,
): Promise<SlowRun> {
  const fdsBefore = fdCount(pid);
  const clients = (['headers', 'body'] as SlowKind[]).flatMap((kind) =>
    Array.from({ length: perKind }, () => slowClient(base, path, kind, 500)),
  );
  await sleep(1000);
  const fdsPeak = fdCount(pid);
  // A connection the server never cuts is ended by us after `waitMs` (and counted as such).
  const limit = setTimeout(() => clients.forEach((c) => c.stop()), waitMs);
  const ends = await Promise.all(clients.map((c) => c.ended));
  clearTimeout(limit);
  // The server closes its side at once; give the fd table a moment to settle.
  const fdsAfter = await waitFor(
    () => {
      const n = fdCount(pid);
      return n <= fdsBefore + 2 ? n : undefined;
    },
    'fds back to normal',
    5000,
  ).catch(() => fdCount(pid));
  return { ends, fdsBefore, fdsPeak, fdsAfter };
}
