/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-return -- grpc-js dynamic clients are untyped */
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { resolveProtoDir } from '@mesh/kserve';
import { join } from 'node:path';
import { RequestValidationError } from '../errors/router.errors';
import { toStreamError } from './grpc-error.hook';
import { PredictStreams, type StreamedPredict } from './predict-stream';
import { pollUntil } from '../../../../test/support/poll';

const LOADER = { keepCase: false, longs: Number, enums: String, defaults: true, oneofs: true };

function predictorPackage(): any {
  const def = protoLoader.loadSync(
    join(resolveProtoDir(), 'mesh', 'v1', 'predictor.proto'),
    LOADER,
  );
  return (grpc.loadPackageDefinition(def) as any).mesh.v1;
}

/** Answers a test controls: each request waits until `release(text)` is called for it. */
function controlled() {
  const waiting = new Map<string, { resolve: (v: object) => void; reject: (e: unknown) => void }>();
  const signals: AbortSignal[] = [];
  const arrived: string[] = [];
  let onArrive = () => undefined as void;
  const predict: StreamedPredict = (req, signal) => {
    const text = (req.request as { text?: string }).text ?? '';
    signals.push(signal);
    arrived.push(text);
    onArrive();
    return new Promise((resolve, reject) => waiting.set(text, { resolve, reject }));
  };
  return {
    predict,
    signals,
    arrived,
    untilArrived: (n: number) =>
      new Promise<void>((resolve) => {
        const check = () => {
          if (arrived.length >= n) resolve();
        };
        onArrive = check;
        check();
      }),
    answer: (text: string) =>
      waiting.get(text)!.resolve({ model: 'm', version: 1, prediction: { label: text } }),
    fail: (text: string, err: unknown) => waiting.get(text)!.reject(err),
  };
}

interface Harness {
  streams: PredictStreams;
  client: any;
  served: Promise<void>[];
  close(): Promise<void>;
}

async function start(predict: StreamedPredict): Promise<Harness> {
  const pkg = predictorPackage();
  const streams = new PredictStreams((err) => toStreamError(err));
  const served: Promise<void>[] = [];
  const server = new grpc.Server();
  server.addService(pkg.Predictor.service, {
    PredictStream: (call: any) => served.push(streams.serve(call, predict)),
  });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, p) =>
      err ? reject(err) : resolve(p),
    ),
  );
  const client = new pkg.Predictor(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
  return {
    streams,
    client,
    served,
    close: async () => {
      client.close();
      // A test that failed may leave a stream open: it must not keep the suite waiting.
      const force = setTimeout(() => server.forceShutdown(), 1000);
      await new Promise<void>((resolve) => server.tryShutdown(() => resolve()));
      clearTimeout(force);
    },
  };
}

/** Opens a stream and collects its answers and how it ended. */
function open(client: any) {
  const call = client.PredictStream();
  const answers: any[] = [];
  const ended = new Promise<{ code: number }>((resolve) => {
    call.on('status', (s: grpc.StatusObject) => resolve({ code: s.code }));
  });
  call.on('data', (m: any) => answers.push(m));
  call.on('error', () => undefined);
  const send = (id: string, text: string) => call.write({ id, request: { task: 't', text } });
  return { call, answers, ended, send };
}

async function until(what: () => boolean): Promise<void> {
  await pollUntil(() => (what() ? true : undefined), { timeoutMs: 5000, intervalMs: 10 });
}

describe('PredictStreams', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('answers each request with its id, in the order answers are ready', async () => {
    const c = controlled();
    h = await start(c.predict);
    const s = open(h.client);
    s.send('first', 'one');
    s.send('second', 'two');
    await c.untilArrived(2);
    c.answer('two');
    await until(() => s.answers.length === 1);
    c.answer('one');
    await until(() => s.answers.length === 2);
    expect(s.answers.map((a) => [a.id, a.result, a.response?.prediction?.label])).toEqual([
      ['second', 'response', 'two'],
      ['first', 'response', 'one'],
    ]);
    s.call.end();
    expect(await s.ended).toEqual({ code: grpc.status.OK });
  });

  it('answers a failed request on the stream with the unary mapping, and keeps serving', async () => {
    const c = controlled();
    h = await start(c.predict);
    const s = open(h.client);
    s.send('bad', 'bad');
    await c.untilArrived(1);
    c.fail('bad', new RequestValidationError([{ path: 'task', message: 'required' }]));
    await until(() => s.answers.length === 1);
    expect(s.answers[0]).toMatchObject({
      id: 'bad',
      result: 'error',
      error: {
        code: grpc.status.INVALID_ARGUMENT,
        meshCode: 'INVALID_ARGUMENT',
        message: 'invalid request: task: required',
      },
    });
    expect(JSON.parse(s.answers[0].error.detailsJson)).toEqual({
      issues: [{ path: 'task', message: 'required' }],
    });
    s.send('good', 'good');
    await c.untilArrived(2);
    c.answer('good');
    await until(() => s.answers.length === 2);
    expect(s.answers[1]).toMatchObject({ id: 'good', result: 'response' });
    s.call.end();
    expect(await s.ended).toEqual({ code: grpc.status.OK });
  });

  it('answers everything sent before a half-close, then ends the stream', async () => {
    const c = controlled();
    h = await start(c.predict);
    const s = open(h.client);
    s.send('a', 'a');
    s.send('b', 'b');
    s.call.end();
    await c.untilArrived(2);
    c.answer('a');
    await until(() => s.answers.length === 1);
    expect(h.streams.size).toBe(1);
    c.answer('b');
    expect(await s.ended).toEqual({ code: grpc.status.OK });
    expect(s.answers.map((a) => a.id)).toEqual(['a', 'b']);
    await Promise.all(h.served);
    expect(h.streams.size).toBe(0);
  });

  it('aborts what a cancelled stream still waits for', async () => {
    const c = controlled();
    h = await start(c.predict);
    const s = open(h.client);
    s.send('a', 'a');
    await c.untilArrived(1);
    expect(c.signals[0]!.aborted).toBe(false);
    s.call.cancel();
    await until(() => c.signals[0]!.aborted);
    await Promise.all(h.served);
    expect(h.streams.size).toBe(0);
  });

  it('stops taking requests while the caller does not read its answers', async () => {
    const arrived: number[] = [];
    // Each answer is about 100 KB, so a caller that does not read fills the buffers quickly.
    const embedding = new Array<number>(25_000).fill(0.5);
    h = await start(() => {
      arrived.push(arrived.length);
      return Promise.resolve({ model: 'm', version: 1, prediction: { embedding } });
    });
    const s = open(h.client);
    s.call.pause();
    for (let i = 0; i < 60; i++) s.send(`r${i}`, `t${i}`);
    // Poll until the intake stops moving, then check it stopped short of everything sent.
    let seen = -1;
    for (let i = 0; i < 100 && seen !== arrived.length; i++) {
      seen = arrived.length;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(arrived.length).toBeLessThan(60);
    s.call.resume();
    await until(() => s.answers.length === 60);
    expect(arrived).toHaveLength(60);
    s.call.end();
    expect(await s.ended).toEqual({ code: grpc.status.OK });
  }, 30_000);

  it('on drain, answers what it holds, refuses what comes meanwhile, then ends', async () => {
    const c = controlled();
    h = await start(c.predict);
    const busy = open(h.client);
    const idle = open(h.client);
    busy.send('held', 'held');
    idle.send('quick', 'quick');
    await c.untilArrived(2);
    c.answer('quick');
    await until(() => idle.answers.length === 1);
    h.streams.drain();
    // A stream with nothing open ends at once; the other once its request is answered.
    expect(await idle.ended).toEqual({ code: grpc.status.OK });
    busy.send('late', 'late');
    await until(() => busy.answers.length === 1);
    expect(busy.answers[0]).toMatchObject({
      id: 'late',
      result: 'error',
      error: { code: grpc.status.UNAVAILABLE, meshCode: 'SHUTTING_DOWN' },
    });
    expect(c.arrived).not.toContain('late');
    c.answer('held');
    expect(await busy.ended).toEqual({ code: grpc.status.OK });
    expect(busy.answers.map((a) => a.id)).toEqual(['late', 'held']);
  });
});
