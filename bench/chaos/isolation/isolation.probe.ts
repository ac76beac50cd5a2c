/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-return -- wire JSON and grpc-js clients built from proto/ are untyped by nature */
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { join } from 'node:path';

/** One tenant as a caller sees it: its name and API key. */
export interface TenantKey {
  name: string;
  key: string;
}

export interface HttpAnswer {
  status: number;
  body: any;
}

/** Counts every request and records every check that failed (a breach, or a vacuous control). */
export class IsolationProbe {
  requests = 0;
  checks = 0;
  readonly breaches: string[] = [];
  private readonly predictor: any;
  private readonly jobs: any;

  constructor(
    readonly http: string,
    grpcAddress: string,
  ) {
    const root = join(__dirname, '..', '..', '..', 'proto', 'mesh', 'v1');
    const opts = { keepCase: false, longs: Number, enums: String, defaults: true, oneofs: true };
    const load = (file: string) =>
      grpc.loadPackageDefinition(protoLoader.loadSync(join(root, file), opts)) as any;
    const creds = grpc.credentials.createInsecure();
    this.predictor = new (load('predictor.proto').mesh.v1.Predictor)(grpcAddress, creds);
    this.jobs = new (load('jobs.proto').mesh.v1.Jobs)(grpcAddress, creds);
  }

  close(): void {
    (this.predictor as grpc.Client).close();
    (this.jobs as grpc.Client).close();
  }

  /** Records a check; `ok` false adds `what` to the breaches. */
  expect(ok: boolean, what: string): boolean {
    this.checks++;
    if (!ok) this.breaches.push(what);
    return ok;
  }

  async call(
    method: string,
    path: string,
    key: string | undefined,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<HttpAnswer> {
    this.requests++;
    const res = await fetch(`${this.http}${path}`, {
      method,
      headers: {
        ...(key === undefined ? {} : { authorization: `Bearer ${key}` }),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // NDJSON or SSE: kept as text
    }
    return { status: res.status, body: parsed };
  }

  /** A unary call of mesh.v1.Predictor or mesh.v1.Jobs; resolves with the status code (0 = OK). */
  unary(
    service: 'predictor' | 'jobs',
    method: string,
    request: object,
    key: string,
  ): Promise<{ code: grpc.status; response?: any; mesh?: string }> {
    this.requests++;
    const client = service === 'predictor' ? this.predictor : this.jobs;
    const md = new grpc.Metadata();
    md.set('authorization', `Bearer ${key}`);
    return new Promise((resolve) => {
      client[method](
        request,
        md,
        { deadline: Date.now() + 15_000 },
        (err: grpc.ServiceError | null, response: unknown) =>
          resolve(
            err
              ? { code: err.code, mesh: String(err.metadata?.get('x-mesh-error-code')[0] ?? '') }
              : { code: 0, response },
          ),
      );
    });
  }

  /** GetJobResults: how many result messages came before the stream ended, and its status. */
  resultsStream(jobId: string, key: string): Promise<{ code: grpc.status; messages: number }> {
    this.requests++;
    const md = new grpc.Metadata();
    md.set('authorization', `Bearer ${key}`);
    return new Promise((resolve) => {
      let messages = 0;
      const call = this.jobs.GetJobResults({ jobId, fromIndex: 0 }, md, {
        deadline: Date.now() + 15_000,
      }) as grpc.ClientReadableStream<unknown>;
      call.on('data', () => messages++);
      call.on('error', (err: grpc.ServiceError) => resolve({ code: err.code, messages }));
      call.on('end', () => resolve({ code: 0, messages }));
    });
  }
}
