import { FencedWriteError } from '@mesh/routing';
import type { Logger } from 'pino';
import type { LeaderLease } from '../leader/leader-lease';
import type { RolloutMachine } from './rollout-machine';
import { RevisionConflictError } from './rollout.errors';
import type { Clock } from './rollout-ports';
import type { RolloutRepository } from './rollout.repository';

export interface RolloutRunnerOptions {
  tickMs: number;
  /** Backends are reconciled every this many ms (by the leader only). */
  reconcileMs: number;
  /** The coordinator's clock: the one the machine reads (RolloutPorts.clock). */
  clock: Clock;
}

export interface Reconciler {
  reconcile(): Promise<number>;
}

/**
 * The leader's loop: hold the lease, advance every active rollout one transition, persist it
 * with the fencing token, reconcile backends now and then. Ticks never overlap. A replica
 * without the lease only serves the API; it takes over when the leader's lease lapses.
 */
export class RolloutRunner {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;
  private leading = false;
  private lastReconcile = 0;
  constructor(
    private readonly lease: LeaderLease,
    private readonly repository: RolloutRepository,
    private readonly machine: RolloutMachine,
    private readonly reconciler: Reconciler,
    private readonly logger: Logger,
    private readonly options: RolloutRunnerOptions,
  ) {}

  private get clock(): Clock {
    return this.options.clock;
  }

  get isLeader(): boolean {
    return this.leading;
  }

  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  /**
   * Stops ticking, waits for the tick in progress, and hands the lease back — each bounded,
   * since with Redis down both would wait forever (an unreleased lease simply expires).
   */
  async stop(graceMs = 3000): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await within(graceMs, this.running);
    if (this.leading)
      await within(
        graceMs,
        this.lease.release().catch(() => undefined),
      );
    this.leading = false;
  }

  /** One pass (exposed for tests). */
  async tick(): Promise<void> {
    const fence = await this.lease.tryAcquire();
    this.setLeading(fence !== undefined);
    if (!fence) return;
    for (const record of await this.repository.active()) {
      try {
        const next = await this.machine.advance(record);
        if (next !== record) await this.repository.save(next, fence);
      } catch (err: unknown) {
        if (err instanceof FencedWriteError) {
          this.logger.warn({ event: 'fenced', token: fence.token }, 'lost the leader lease');
          this.setLeading(false);
          return;
        }
        if (err instanceof RevisionConflictError) continue; // an operator command; next tick
        this.logger.warn({ err, rollout: record.id, state: record.state }, 'rollout step failed');
      }
    }
    const now = this.clock.now();
    if (now - this.lastReconcile >= this.options.reconcileMs) {
      this.lastReconcile = now;
      await this.reconciler.reconcile().catch((err: unknown) => {
        this.logger.warn({ err }, 'reconcile failed');
      });
    }
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.tick()
        .catch((err: unknown) => this.logger.warn({ err }, 'coordinator tick failed'))
        .finally(() => this.schedule(this.options.tickMs));
    }, delayMs);
  }

  private setLeading(leading: boolean): void {
    if (leading === this.leading) return;
    this.leading = leading;
    this.logger.info(
      { event: leading ? 'leader' : 'follower', holder: this.lease.holder },
      leading ? 'took the leader lease' : 'not the leader',
    );
  }
}

async function within(ms: number, work: Promise<unknown> | undefined): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  await Promise.race([work, timeout]);
  clearTimeout(timer);
}
