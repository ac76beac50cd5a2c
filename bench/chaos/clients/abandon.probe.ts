import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { request, type ClientRequest } from 'node:http';
import { join } from 'node:path';
import { metricSum, scrape } from '../metrics';

/** The model the probe floods: the first demo classifier (max_batch_size 64, max length 128). */
export const PROBE_MODEL = 'question-type-zh';
/** Rows and tokens of one direct request: big enough that a queue forms on one instance. */
export const ROWS = 8;
const TOKENS = 128;

/** What the host's statistics and metrics say about one model, summed over its versions. */
export interface HostCounters {
  success: number;
  /** Rows of successful requests (Triton's inference_count). */
  inferenceRows: number;
  /** Rows the model actually ran: Σ batch_size × executions, from batch_stats. */
  executedRows: number;
  abandoned: number;
  pending: number;
}

interface StatsJson {
  model_stats?: {
    inference_count?: number;
    inference_stats?: { success?: { count?: number } };
    batch_stats?: { batch_size?: number; compute_infer?: { count?: number } }[];
  }[];
}

export async function hostCounters(hostHttp: string, hostMetrics: string): Promise<HostCounters> {
  const stats = (await (
    await fetch(`${hostHttp}/v2/models/${PROBE_MODEL}/stats`)
  ).json()) as StatsJson;
  const text = await scrape(hostMetrics);
  const out = { success: 0, inferenceRows: 0, executedRows: 0 };
  for (const s of stats.model_stats ?? []) {
    out.success += s.inference_stats?.success?.count ?? 0;
    out.inferenceRows += s.inference_count ?? 0;
    for (const b of s.batch_stats ?? [])
      out.executedRows += (b.batch_size ?? 0) * (b.compute_infer?.count ?? 0);
  }
  const labels = { model: PROBE_MODEL };
  return {
    ...out,
    abandoned: metricSum(text, 'mesh_host_requests_abandoned_total', labels),
    pending: metricSum(text, 'nv_inference_pending_request_count', labels),
  };
}

function ids(): number[] {
  return Array.from({ length: ROWS * TOKENS }, (_, i) => 100 + (i % 500));
}

/** KServe v2 JSON for one ROWS × TOKENS request. */
function kserveJson(): string {
  const data = ids();
  const input = (name: string, fill?: number) => ({
    name,
    datatype: 'INT64',
    shape: [ROWS, TOKENS],
    data: fill === undefined ? data : data.map(() => fill),
  });
  return JSON.stringify({
    inputs: [input('input_ids'), input('attention_mask', 1), input('token_type_ids', 0)],
  });
}

function inferenceClient(address: string): grpc.Client {
  const dir = join(__dirname, '..', '..', '..', 'proto');
  const def = protoLoader.loadSync(['inference/grpc_service.proto'], {
    keepCase: true,
    longs: String,
    defaults: true,
    includeDirs: [dir, join(dir, 'inference')],
  });
  const pkg = grpc.loadPackageDefinition(def) as unknown as {
    inference: { GRPCInferenceService: grpc.ServiceClientConstructor };
  };
  return new pkg.inference.GRPCInferenceService(address, grpc.credentials.createInsecure());
}

/** How one wave of callers that leave went, from the callers' side. */
export interface Wave {
  sent: number;
  /** Rows those requests carried. */
  rows: number;
  /** Answers that arrived before the callers gave up. */
  answered: number;
}

/** Two waves sent together, counted as one. */
export function both(a: Wave, b: Wave): Wave {
  return { sent: a.sent + b.sent, rows: a.rows + b.rows, answered: a.answered + b.answered };
}

/** When the callers of a wave give up (resolves). */
export type Leave = () => Promise<void>;

/**
 * `n` gRPC ModelInfer calls at once on `version` ('' = latest), every one cancelled when
 * `leave` resolves (undefined: the callers stay, e.g. a backlog that keeps the host busy).
 * `progress.answered` counts answers as they come.
 */
export async function grpcWave(
  address: string,
  n: number,
  leave: Leave | undefined,
  progress: { answered: number } = { answered: 0 },
  version = '',
): Promise<Wave> {
  const client = inferenceClient(address);
  const tensor = (name: string, v?: number) => ({
    name,
    datatype: 'INT64',
    shape: [ROWS, TOKENS],
    contents: { int64_contents: v === undefined ? ids() : ids().map(() => v) },
  });
  const request = {
    model_name: PROBE_MODEL,
    model_version: version,
    inputs: [tensor('input_ids'), tensor('attention_mask', 1), tensor('token_type_ids', 0)],
  };
  const calls: grpc.ClientUnaryCall[] = [];
  const done = Array.from(
    { length: n },
    () =>
      new Promise<void>((resolve) => {
        const fn = (client as unknown as Record<string, (...a: unknown[]) => grpc.ClientUnaryCall>)
          .ModelInfer!;
        calls.push(
          fn.call(client, request, (err: grpc.ServiceError | null) => {
            if (!err) progress.answered++;
            resolve();
          }),
        );
      }),
  );
  if (leave) {
    await Promise.race([leave(), Promise.all(done)]);
    for (const c of calls) c.cancel();
  }
  await Promise.all(done);
  client.close();
  return { sent: n, rows: n * ROWS, answered: progress.answered };
}

/**
 * `n` POSTs at once to `url` with `body`, each on its own connection, every connection closed
 * by the caller when `leave` resolves (what a client that gives up does).
 */
export async function httpWave(
  url: string,
  body: string,
  headers: Record<string, string>,
  n: number,
  rowsEach: number,
  leave: Leave,
): Promise<Wave> {
  let answered = 0;
  const requests: ClientRequest[] = [];
  const calls = Array.from(
    { length: n },
    () =>
      new Promise<void>((resolve) => {
        const req = request(
          url,
          {
            method: 'POST',
            agent: false,
            headers: {
              'content-type': 'application/json',
              'content-length': Buffer.byteLength(body),
              ...headers,
            },
          },
          (res) => {
            res.resume();
            res.on('end', () => {
              if (res.statusCode === 200) answered++;
              resolve();
            });
            res.on('error', () => resolve());
          },
        );
        req.on('error', () => resolve());
        req.on('close', () => resolve());
        req.end(body);
        requests.push(req);
      }),
  );
  await Promise.race([leave(), Promise.all(calls)]);
  for (const r of requests) r.destroy();
  await Promise.all(calls);
  return { sent: n, rows: n * rowsEach, answered };
}

/** A direct KServe v2 HTTP wave on the host. */
export function hostHttpWave(hostHttp: string, n: number, leave: Leave): Promise<Wave> {
  return httpWave(`${hostHttp}/v2/models/${PROBE_MODEL}/infer`, kserveJson(), {}, n, ROWS, leave);
}
