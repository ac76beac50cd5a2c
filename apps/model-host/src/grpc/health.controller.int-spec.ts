import * as grpc from '@grpc/grpc-js';
import { INFERENCE_SERVICE_NAME, loadInferencePackage } from '@mesh/kserve';
import pino from 'pino';
import { HostAccessLog } from '../core/host-access-log';
import type { ModelHostService } from '../core/model-host.service';
import { GrpcServer } from './grpc-server';

type Status = { status: string };
type HealthClient = grpc.Client & {
  Check(req: { service: string }, cb: (err: grpc.ServiceError | null, res: Status) => void): void;
  Watch(req: { service: string }): grpc.ClientReadableStream<Status>;
};

/** The gRPC listener over a host whose readiness the test sets. */
async function listening(ready: boolean) {
  const host = { ready, isReady: () => host.ready };
  const logger = pino({ level: 'silent' });
  const server = new GrpcServer(
    host as unknown as ModelHostService,
    4 * 1024 * 1024,
    logger,
    new HostAccessLog(logger, 0),
  );
  const port = await server.listen('127.0.0.1', 0);
  const { HealthClient } = loadInferencePackage();
  const client = new HealthClient(
    `127.0.0.1:${port}`,
    grpc.credentials.createInsecure(),
  ) as unknown as HealthClient;
  const check = (service: string) =>
    new Promise<string>((resolve, reject) =>
      client.Check({ service }, (err, res) => (err ? reject(err) : resolve(res.status))),
    );
  return { host, server, client, check };
}

describe('model host gRPC health (grpc.health.v1.Health)', () => {
  it('answers SERVING for the server and the inference service once a ready host listens', async () => {
    const { server, client, check } = await listening(true);
    try {
      expect(await check('')).toBe('SERVING');
      expect(await check(INFERENCE_SERVICE_NAME)).toBe('SERVING');
      const unknown = await check('nope').catch((e: grpc.ServiceError) => e);
      expect((unknown as grpc.ServiceError).code).toBe(grpc.status.NOT_FOUND);
    } finally {
      client.close();
      await server.close(1000);
    }
  });

  it('answers NOT_SERVING when the host is not ready as it listens', async () => {
    const { server, client, check } = await listening(false);
    try {
      expect(await check('')).toBe('NOT_SERVING');
      expect(await check(INFERENCE_SERVICE_NAME)).toBe('NOT_SERVING');
    } finally {
      client.close();
      await server.close(1000);
    }
  });

  it('tells a watcher SERVING, then NOT_SERVING on drain, and ends its stream so the drain is not held', async () => {
    const { host, server, client } = await listening(true);
    try {
      const seen: string[] = [];
      const watch = client.Watch({ service: INFERENCE_SERVICE_NAME });
      const ended = new Promise<void>((resolve, reject) => {
        watch.on('data', (m: Status) => seen.push(m.status));
        watch.on('end', resolve);
        watch.on('error', reject);
      });
      await new Promise<void>((resolve) => watch.once('data', () => resolve()));
      expect(seen).toEqual(['SERVING']);
      host.ready = false;
      // A deadline far beyond the test's timeout: only an ended Watch lets the drain finish.
      await server.close(30 * 60_000);
      await ended;
      expect(seen).toEqual(['SERVING', 'NOT_SERVING']);
    } finally {
      client.close();
    }
  });
});
