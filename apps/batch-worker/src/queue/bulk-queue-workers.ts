import type { BeforeApplicationShutdown, OnApplicationBootstrap } from '@nestjs/common';
import type { RedisClient } from '@mesh/config';
import { CHUNK_QUEUE, JOB_QUEUE, bullPrefix } from '@mesh/jobs';
import { DelayedError, UnrecoverableError, Worker, type Job } from 'bullmq';
import type { Logger } from 'pino';
import type { BatchWorkerConfig } from '@mesh/app-config';
import type { ChunkInference, PinnedModel } from '../core/chunk-inference';
import { WaitForVersion, type ChunkProcessor } from '../core/chunk-processor';
import type { JobFinalizer } from '../core/job-finalizer';
import { ZodError } from 'zod';

/**
 * The BullMQ edge: one Worker on the chunk queue and one on the job (parent) queue, both under
 * `<prefix>:{bull}`. Started in onApplicationBootstrap; on shutdown the workers stop taking
 * jobs and finish the chunks they hold (Worker.close waits for them), then Redis closes.
 * Each Worker gets a `bullmq`-role connection of its own (it copies it for its blocking one).
 */
export interface WorkerConnections {
  chunks: RedisClient;
  jobs: RedisClient;
}

export class BulkQueueWorkers implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private chunkWorker?: Worker;
  private jobWorker?: Worker;

  constructor(
    private readonly config: BatchWorkerConfig,
    private readonly inference: ChunkInference<PinnedModel>,
    private readonly chunks: ChunkProcessor<PinnedModel>,
    private readonly finalizer: JobFinalizer,
    private readonly logger: Logger,
    private readonly connections: WorkerConnections,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.inference.start();
    const prefix = bullPrefix(this.config.REDIS_KEY_PREFIX);
    const common = {
      prefix,
      lockDuration: this.config.WORKER_LOCK_MS,
      stalledInterval: this.config.WORKER_STALLED_INTERVAL_MS,
      maxStalledCount: this.config.WORKER_MAX_STALLED_COUNT,
    };
    this.chunkWorker = new Worker(CHUNK_QUEUE, (job, token) => this.runChunk(job, token), {
      ...common,
      connection: this.connections.chunks,
      concurrency: this.config.WORKER_CONCURRENCY,
    });
    // Emitted for retried attempts too: only a chunk that ended in `failed` gets item errors.
    this.chunkWorker.on('failed', (job, err) => {
      if (!job) return;
      void job
        .isFailed()
        .then((failed) => (failed ? this.chunks.failedForGood(job.data, err) : undefined))
        .catch((e: unknown) => this.logger.error({ err: e }, 'could not write item errors'));
    });
    this.jobWorker = new Worker(JOB_QUEUE, (job) => this.finalizer.process(job.data), {
      ...common,
      connection: this.connections.jobs,
      concurrency: 4,
    });
    for (const w of [this.chunkWorker, this.jobWorker]) {
      w.on('error', (err) => this.logger.warn({ err }, 'queue worker error'));
    }
    this.logger.info(
      { event: 'queues-started', prefix, concurrency: this.config.WORKER_CONCURRENCY },
      'taking bulk jobs',
    );
  }

  /** Before queues and Redis close: the workers finish the chunks they hold, then stop. */
  async beforeApplicationShutdown(): Promise<void> {
    const workers = [this.chunkWorker, this.jobWorker].filter((w) => w !== undefined);
    // A SIGTERM right after start can find a worker still opening its blocking connection;
    // closing it then makes BullMQ emit "Connection is closed" where no listener is left,
    // which ends the process with exit code 1. Let the connections finish opening first.
    await Promise.all(workers.map((w) => w.waitUntilReady().catch(() => undefined)));
    await Promise.all(workers.map((w) => w.close()));
    await this.inference.close();
  }

  private async runChunk(job: Job, token: string | undefined): Promise<string> {
    try {
      return await this.chunks.process(job);
    } catch (err: unknown) {
      if (err instanceof WaitForVersion) {
        // Parked without using an attempt; it comes back after the wait and checks again.
        await job.moveToDelayed(Date.now() + this.config.WORKER_VERSION_WAIT_MS, token);
        throw new DelayedError();
      }
      if (err instanceof ZodError)
        throw new UnrecoverableError(`bad chunk payload: ${err.message}`);
      throw err;
    }
  }
}
