/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-return -- grpc-js dynamic clients are untyped */
import * as grpc from '@grpc/grpc-js';
import { createRedis, closeRedis } from '@mesh/config';
import { uniquePrefix } from './support/app-process';
import { ACME_KEY, predictorClient, startMesh, type Mesh } from './support/router-mesh';

jest.setTimeout(60_000);

const prefix = uniquePrefix(__filename);
let mesh: Mesh | undefined;

afterAll(async () => {
  await mesh?.stop();
  const redis = createRedis('commands', {
    url: 'redis://127.0.0.1:6379',
    name: 'predict-stream-e2e',
  });
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length > 0) await redis.del(...keys);
  await closeRedis(redis);
});

describe('PredictStream when the router stops', () => {
  it('answers every request a stream sent before SIGTERM, ends the stream OK and exits 0', async () => {
    mesh = await startMesh(prefix);
    const client = predictorClient(mesh.grpcAddress);
    try {
      const metadata = new grpc.Metadata();
      metadata.set('authorization', `Bearer ${ACME_KEY}`);
      const stream = client.PredictStream(metadata, { deadline: Date.now() + 30_000 });
      const answers = new Map<string, any>();
      let firstAnswer: () => void = () => undefined;
      const answered = new Promise<void>((resolve) => (firstAnswer = resolve));
      stream.on('data', (m: any) => {
        answers.set(m.id, m);
        firstAnswer();
      });
      stream.on('error', () => undefined);
      const status = new Promise<grpc.StatusObject>((resolve) => stream.on('status', resolve));
      const ids = Array.from({ length: 40 }, (_, i) => `r${i}`);
      for (const id of ids) {
        stream.write({ id, request: { task: 'sentiment', text: `request ${id} is fine` } });
      }
      // Stop the router while most of the stream's requests are still waiting for the model.
      await answered;
      const exit = mesh.router.stop('SIGTERM');
      expect((await status).code).toBe(grpc.status.OK);
      expect(await exit).toBe(0);
      expect([...answers.keys()].sort()).toEqual([...ids].sort());
      const outcomes = [...answers.values()].map((a) =>
        a.result === 'response' ? 'response' : a.error.meshCode,
      );
      // Each was either served or refused as the router went down; none was dropped.
      expect(outcomes.filter((o) => o !== 'response' && o !== 'SHUTTING_DOWN')).toEqual([]);
      expect(outcomes).toContain('response');
    } finally {
      client.close();
    }
  });
});
