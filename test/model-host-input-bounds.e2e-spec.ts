import { Metadata, status, type ServiceError } from '@grpc/grpc-js';
import {
  RawKServeClient,
  bertRequest,
  ensureTinyModels,
  makeRepository,
  tokenRow,
  type Any,
} from './support/model-host-fixtures';
import { startApp, type StartedApp } from './support/app-process';
import { pollUntil } from './support/poll';

// Real processes and real ORT sessions: allow for a busy 2-core machine.
jest.setTimeout(60_000);

/** The demo models' tables (scripts/models: tiny BERT, 29976-word vocabulary). */
const VOCAB = 29976;
const POSITIONS = 512;

interface Case {
  what: string;
  ids: number[];
  types: number[];
  message: string;
}

function cases(): Case[] {
  const row = tokenRow(6, 1);
  const zeros = row.map(() => 0);
  const tooLong = tokenRow(2000, 2);
  return [
    {
      what: 'an id past the embedding table',
      ids: row.map((id, i) => (i === 3 ? 999999 : id)),
      types: zeros,
      message:
        `input 'input_ids' holds 999999 at [0,3]; the model's embedding table has ${VOCAB} rows ` +
        `(valid ids 0..${VOCAB - 1})`,
    },
    {
      what: 'a token type past its table',
      ids: row,
      types: zeros.map((t, i) => (i === 2 ? 7 : t)),
      message:
        "input 'token_type_ids' holds 7 at [0,2]; the model's token-type embedding table has 2 rows (valid ids 0..1)",
    },
    {
      what: 'a sequence longer than the position table',
      ids: tooLong,
      types: tooLong.map(() => 0),
      message:
        "input 'input_ids' has 2000 positions along its last dimension (shape [1,2000]); " +
        `the model's position embedding table has ${POSITIONS} rows (at most ${POSITIONS} positions)`,
    },
    {
      what: 'token types of another length than the ids',
      ids: row,
      types: zeros.slice(1),
      message:
        "input 'token_type_ids' has 5 along dimension 1 (shape [1,5]) but input 'input_ids' has 6 " +
        "along dimension 1; the model names both 'sequence', so they must be equal",
    },
    {
      what: 'an empty sequence',
      ids: [],
      types: [],
      message:
        "input 'input_ids': shape [1,0] is empty along dimension 1; every dimension must be at least 1",
    },
  ];
}

/** A gRPC ModelInferRequest with raw contents (bertRequest's layout, token types given). */
function grpcRequest(c: Case, id: string): Any {
  const req = bertRequest('sentiment', [c.ids], { id });
  const types = Buffer.alloc(c.types.length * 8);
  c.types.forEach((t, i) => types.writeBigInt64LE(BigInt(t), i * 8));
  (req.raw_input_contents as Buffer[])[2] = types;
  (req.inputs as { shape: number[] }[])[2]!.shape = [1, c.types.length];
  return req;
}

function httpBody(c: Case): string {
  const t = (name: string, data: number[]) => ({
    name,
    shape: [1, data.length],
    datatype: 'INT64',
    data,
  });
  return JSON.stringify({
    inputs: [
      t('input_ids', c.ids),
      t(
        'attention_mask',
        c.ids.map(() => 1),
      ),
      t('token_type_ids', c.types),
    ],
  });
}

describe('model host: client input the model cannot take is refused before ORT runs', () => {
  let repo: ReturnType<typeof makeRepository>;
  let host: StartedApp;
  let client: RawKServeClient;

  beforeAll(async () => {
    ensureTinyModels();
    repo = makeRepository({ sentiment: { from: 'sentiment-en' } });
    host = await startApp(
      'model-host',
      {
        MODEL_REPOSITORY: repo.dir,
        // Its per-request access line, read below, is at debug.
        LOG_LEVEL: 'debug',
        MODEL_HOST_HTTP_PORT: '0',
        MODEL_HOST_GRPC_PORT: '0',
        MODEL_HOST_METRICS_PORT: '0',
      },
      { listeners: ['http', 'grpc', 'metrics'], timeoutMs: 45_000 },
    );
    client = new RawKServeClient(host.urls.grpc!);
  }, 60_000);

  afterAll(async () => {
    client?.close();
    await host?.stop('SIGKILL');
    repo?.remove();
  });

  /** The host still answers a well-formed request after refusing bad ones. */
  async function stillServes(): Promise<void> {
    const res = await client.call('ModelInfer', bertRequest('sentiment', [tokenRow(6, 9)]));
    expect(res.outputs[0].shape).toEqual([1, 3]);
  }

  it('answers INVALID_ARGUMENT over gRPC, naming the tensor and the bound', async () => {
    for (const c of cases()) {
      const err: ServiceError = await client.fail('ModelInfer', grpcRequest(c, ''));
      expect({ what: c.what, code: err.code, details: err.details }).toEqual({
        what: c.what,
        code: status.INVALID_ARGUMENT,
        details: c.message,
      });
    }
    await stillServes();
  });

  it('answers 400 over HTTP with the error body, naming the tensor and the bound', async () => {
    for (const c of cases()) {
      const res = await fetch(`${host.urls.http}/v2/models/sentiment/infer`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: httpBody(c),
      });
      expect({ what: c.what, status: res.status, body: await res.json() }).toEqual({
        what: c.what,
        status: 400,
        body: { error: c.message },
      });
    }
    await stillServes();
  });

  it('logs each inference once with the request id, model, version and status', async () => {
    const md = new Metadata();
    md.set('x-request-id', 'bounds-trace-1');
    await new Promise<void>((resolve, reject) => {
      client.inference.ModelInfer(grpcRequest(cases()[0]!, 'msg-id'), md, (err: Error | null) =>
        err ? resolve() : reject(new Error('expected INVALID_ARGUMENT')),
      );
    });
    await client.call('ModelInfer', bertRequest('sentiment', [tokenRow(5, 3)], { id: 'ok-id-7' }));
    const access = () =>
      host.logs
        .filter((l) => l.includes('"event":"access"'))
        .map((l) => JSON.parse(l) as Record<string, unknown>);
    const refused = await pollUntil(() => access().find((e) => e.requestId === 'bounds-trace-1'), {
      timeoutMs: 10_000,
      what: 'the refused request in the access log',
    });
    expect(refused).toMatchObject({
      transport: 'grpc',
      method: 'ModelInfer',
      model: 'sentiment',
      status: status.INVALID_ARGUMENT,
      failed: true,
    });
    // Without x-request-id the ModelInfer id is the request id.
    const ok = await pollUntil(() => access().find((e) => e.requestId === 'ok-id-7'), {
      timeoutMs: 10_000,
      what: 'the successful request in the access log',
    });
    expect(ok).toMatchObject({ model: 'sentiment', version: '1', status: 0, failed: false });
    expect(typeof ok.latencyMs).toBe('number');
    expect(access().filter((e) => e.requestId === 'ok-id-7')).toHaveLength(1);
  });
});
