import { wholeMb } from '@mesh/model-repository';

/** What a measured build produced and the resident memory it added. */
export interface Measured<T> {
  value: T;
  /** RSS after − before, whole MB rounded up, at least 1. */
  mb: number;
}

/**
 * Measures the resident memory a version build adds: process RSS before and after. RSS is the
 * whole process, so two builds at once would each see the other's sessions; builds measured by
 * one meter therefore run one after another (a host-wide mutex — versions still load in
 * parallel up to here and serve as soon as they are built).
 */
export class BuildMemoryMeter {
  private tail: Promise<unknown> = Promise.resolve();

  constructor(private readonly rss: () => number = () => process.memoryUsage().rss) {}

  measure<T>(build: () => Promise<T>): Promise<Measured<T>> {
    const run = this.tail.then(async () => {
      const before = this.rss();
      const value = await build();
      return { value, mb: wholeMb(this.rss() - before) };
    });
    // The next build waits for this one to end, whether it succeeded or not.
    this.tail = run.catch(() => undefined);
    return run;
  }
}
