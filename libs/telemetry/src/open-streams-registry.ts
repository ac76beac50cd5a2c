import type { BeforeApplicationShutdown } from '@nestjs/common';

/**
 * Long-lived result and event streams. On shutdown each is told to stop, so it ends its
 * response cleanly (a complete last line / event) and the server can close.
 */
export class OpenStreamsRegistry implements BeforeApplicationShutdown {
  private readonly open = new Set<AbortController>();

  /** A signal that fires on shutdown or when `done` is called. */
  track(): { signal: AbortSignal; done: () => void } {
    const controller = new AbortController();
    this.open.add(controller);
    return {
      signal: controller.signal,
      done: () => {
        this.open.delete(controller);
        controller.abort();
      },
    };
  }

  beforeApplicationShutdown(): void {
    for (const c of this.open) c.abort();
    this.open.clear();
  }
}
