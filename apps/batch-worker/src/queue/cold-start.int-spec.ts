import { randomUUID } from 'node:crypto';
import { closeRedis, createRedis, type RedisClient } from '@mesh/config';
import { LoadedVersionsFeed } from '@mesh/inference';
import { JobFlowProducer, JobRepository } from '@mesh/jobs';
import { PlacementDemand, PlacementKeys } from '@mesh/placement';
import type { EncodedBatch, OutputTensor, TextInput } from '@mesh/preprocessing';
import pino from 'pino';
import { Registry } from 'prom-client';
import { jobRecord } from '../../../../libs/jobs/src/testing/job-fixtures';
import { pollUntil } from '../../../../test/support/poll';
import { loadBatchWorkerConfig } from '@mesh/app-config';
import type { ChunkInference, PinnedModel } from '../core/chunk-inference';
import { ChunkProcessor } from '../core/chunk-processor';
import { ChunkRunner } from '../core/chunk-runner';
import { ColdStartRequester } from '../core/cold-start-requester';
import { JobFinalizer } from '../core/job-finalizer';
import { WorkerMetrics } from '../core/worker.metrics';
import { BulkQueueWorkers } from './bulk-queue-workers';
import { PlacementLoadedListener } from './placement-loaded-listener';
import { uniquePrefix } from '../../../../test/support/redis-prefix';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const PREFIX = uniquePrefix(__filename);
const clients: RedisClient[] = [];

function connect(role: 'commands' | 'subscriber' | 'bullmq'): RedisClient {
  const client = createRedis(role, { url: REDIS_URL, name: `test-worker-cold-${role}` });
  clients.push(client);
  return client;
}

/** A model whose "logits" are each text's length, so every result traces to its item. */
const model: PinnedModel = {
  model: 'm',
  version: 2,
  pipeline: 'bert-wordpiece@2',
  kind: 'classification',
  hardMaxChars: 100,
  maxBatchSize: 8,
  encode: (items: readonly TextInput[]) =>
    ({ batchSize: items.length, texts: items.map((i) => i.text) }) as unknown as EncodedBatch,
  postprocess: (out: OutputTensor) =>
    Array.from(out.data, (v) => ({
      kind: 'classification' as const,
      label: `len${v}`,
      score: 1,
      scores: [],
    })),
};

/** Backends where `m` v2 is resident nowhere until the test loads it; calls are counted. */
class ColdInference implements ChunkInference {
  resident = false;
  inferredTexts: string[] = [];
  refreshes = 0;
  start = () => Promise.resolve();
  close = () => Promise.resolve();
  servable = () => model;
  unroutableReason = () => (this.resident ? undefined : 'no backend reports m v2 READY');
  isCold = () => !this.resident;
  refresh = () => {
    this.refreshes += 1;
    return Promise.resolve();
  };
  infer(_v: PinnedModel, batch: EncodedBatch): Promise<OutputTensor> {
    const texts = (batch as unknown as { texts: string[] }).texts;
    this.inferredTexts.push(...texts);
    return Promise.resolve({
      shape: [texts.length, 1],
      data: Float32Array.from(texts, (t) => t.length),
    });
  }
}

afterAll(async () => {
  const redis = connect('commands');
  const left = await redis.keys(`${PREFIX}:*`);
  if (left.length > 0) await redis.del(...left);
  await Promise.all(clients.map((c) => closeRedis(c)));
});

describe('batch worker cold starts (real Redis and BullMQ)', () => {
  it('parks the chunks of a version resident nowhere, asks for it once, and runs each chunk exactly once after the load', async () => {
    const redis = connect('commands');
    const config = loadBatchWorkerConfig({
      REDIS_KEY_PREFIX: PREFIX,
      WORKER_VERSION_WAIT_MS: '200',
    });
    const logger = pino({ enabled: false });
    const repository = new JobRepository(redis, { keyPrefix: PREFIX, retentionSeconds: 3600 });
    const metrics = new WorkerMetrics(new Registry(), () =>
      Promise.resolve({ depth: {}, jobs: {} }),
    );
    const inference = new ColdInference();
    const demand = new PlacementDemand(redis, PREFIX);
    const asks: string[] = [];
    const requester = new ColdStartRequester(
      async (m, v) => {
        asks.push(`${m}@${v}`);
        await demand.request(m, v, 'worker-test');
      },
      // Far longer than the test: the first ask must be the only one.
      3_600_000,
      () => undefined,
    );
    const processor = new ChunkProcessor(
      repository,
      inference,
      new ChunkRunner(inference),
      metrics,
      logger,
      { inFlightBatches: 2, batchRows: 8 },
      requester,
    );
    const workers = new BulkQueueWorkers(
      config,
      inference,
      processor,
      new JobFinalizer(repository, metrics, logger),
      logger,
      { chunks: connect('bullmq'), jobs: connect('bullmq') },
    );
    const listener = new PlacementLoadedListener(
      new LoadedVersionsFeed(connect('subscriber'), PREFIX),
      inference,
      logger,
    );

    // A job of two chunks pinned to the cold version.
    const chunks = [['a', 'bb'], ['ccc']];
    const record = jobRecord(`job-${randomUUID().slice(0, 8)}`, {
      task: 'sentiment',
      model: 'm',
      chunks: chunks.length,
    });
    for (const [i, texts] of chunks.entries()) {
      await repository.writeItems(
        record.id,
        i,
        texts.map((text) => ({ text })),
      );
    }
    await repository.commit(record);
    const flows = new JobFlowProducer(connect('bullmq'), PREFIX, {
      attempts: 3,
      backoffMs: 100,
    });
    try {
      await listener.onApplicationBootstrap();
      await workers.onApplicationBootstrap();
      await flows.enqueue(record);

      const waiting = await pollUntil(
        async () => {
          const r = await repository.get(record.id);
          return r?.state === 'waiting_for_version' ? r : undefined;
        },
        { what: 'the job waiting for its version' },
      );
      expect(waiting.reason).toContain('is loading');
      const pending = await demand.pending();
      expect(pending).toEqual([
        expect.objectContaining({ model: 'm', version: 2, by: 'worker-test' }),
      ]);
      // Both chunks come back from their wait at least once, and still only the one ask.
      await pollUntil(
        async () => {
          const counts = await metrics.chunks.get();
          const parked = counts.values.find((v) => v.labels.outcome === 'waiting')?.value ?? 0;
          return parked >= 4 ? true : undefined;
        },
        { what: 'chunks parked again' },
      );
      expect(asks).toEqual(['m@2']);
      expect(inference.inferredTexts).toEqual([]);

      // The placer loads the version and announces it.
      inference.resident = true;
      await redis.publish(new PlacementKeys(PREFIX).loadedChannel(), 'm@2@10.0.0.1:8001');
      const done = await pollUntil(
        async () => {
          const r = await repository.get(record.id);
          return r?.state === 'completed' ? r : undefined;
        },
        { timeoutMs: 20_000, what: 'the job completed' },
      );
      expect([done.processed, done.succeeded, done.failedItems]).toEqual([3, 3, 0]);
      expect(inference.inferredTexts.sort()).toEqual(['a', 'bb', 'ccc']);
      // The loaded notice ran a discovery round (the worker's view is refreshed at once).
      await pollUntil(() => (inference.refreshes >= 1 ? true : undefined), {
        what: 'a discovery round on the loaded notice',
      });
      expect(asks).toEqual(['m@2']);
    } finally {
      await workers.beforeApplicationShutdown();
      await listener.beforeApplicationShutdown();
      await flows.close();
    }
  });
});
