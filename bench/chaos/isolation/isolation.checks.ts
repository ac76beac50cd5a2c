/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment -- the answers are wire JSON */
import { status as GrpcStatus } from '@grpc/grpc-js';
import { randomUUID } from 'node:crypto';
import { IsolationProbe, type TenantKey } from './isolation.probe';

export interface IsolationSetup {
  /** Router HTTP base URL and gRPC `host:port`. */
  http: string;
  grpc: string;
  /** Two tenants; `a` may call `onlyATask`, `b` may not. Both may call `sharedTask`. */
  a: TenantKey;
  b: TenantKey;
  sharedTask: string;
  onlyATask: string;
  /** How long to wait for B's job to complete (so its results exist); 0 = do not wait. */
  waitForResultsMs: number;
}

export interface IsolationReport {
  requests: number;
  checks: number;
  /** Each check that failed: a way into another tenant's data, or a control that did not hold. */
  breaches: string[];
  /** Whether B's job had finished (results stored) when A tried to read them. */
  resultsExisted: boolean;
  guessedIds: number;
}

const isClientRefusal = (s: number) => s === 400 || s === 404;

/**
 * Tenant A against everything of tenant B's, by every API: predict on B's-only task (and B on
 * A's), B's job ids and guessed ids on HTTP and gRPC (status, results, events, cancel, list,
 * idempotency keys), admin endpoints with tenant keys. Controls (each tenant reads its own
 * job) keep the refusals from being vacuous.
 */
export async function runIsolationChecks(s: IsolationSetup): Promise<IsolationReport> {
  const p = new IsolationProbe(s.http, s.grpc);
  try {
    const idemKey = `iso-${randomUUID()}`;
    const jobB = await submitJob(p, s.b, s.sharedTask, idemKey);
    const jobA = await submitJob(p, s.a, s.sharedTask);
    const resultsExisted =
      s.waitForResultsMs > 0 && (await waitDone(p, s.b, jobB, s.waitForResultsMs));
    await jobsAcrossTenants(p, s.a, s.b, jobB);
    await jobsAcrossTenants(p, s.b, s.a, jobA);
    // A reused idempotency key names the caller's own job, never the other tenant's.
    const again = await p.call('POST', '/v1/jobs', s.a.key, jobBody(s.sharedTask), {
      'idempotency-key': idemKey,
    });
    p.expect(
      again.status === 202 && again.body?.jobId !== jobB,
      `A replaying B's idempotency key got ${again.status} ${JSON.stringify(again.body)}`,
    );
    const guessedIds = await guessedJobIds(p, s.a, jobB);
    await tasksAcrossTenants(p, s);
    await adminWithTenantKeys(p, [s.a, s.b], jobB);
    // After all of that, B's job is still B's, untouched.
    const mine = await p.call('GET', `/v1/jobs/${jobB}`, s.b.key);
    p.expect(
      mine.status === 200 && mine.body?.state !== 'cancelled',
      `B's job after A's attempts: ${mine.status} ${JSON.stringify(mine.body)}`,
    );
    return {
      requests: p.requests,
      checks: p.checks,
      breaches: p.breaches,
      resultsExisted,
      guessedIds,
    };
  } finally {
    p.close();
  }
}

function jobBody(task: string): object {
  return { task, items: [1, 2, 3].map((i) => ({ id: `i${i}`, text: `isolation item ${i}` })) };
}

async function submitJob(
  p: IsolationProbe,
  t: TenantKey,
  task: string,
  idem?: string,
): Promise<string> {
  const res = await p.call(
    'POST',
    '/v1/jobs',
    t.key,
    jobBody(task),
    idem ? { 'idempotency-key': idem } : {},
  );
  const id = res.body?.jobId;
  if (res.status !== 202 || typeof id !== 'string') {
    throw new Error(`${t.name} could not submit a job: ${res.status} ${JSON.stringify(res.body)}`);
  }
  // Control: the owner reads it (so the other tenant's 404 below means something).
  const own = await p.call('GET', `/v1/jobs/${id}`, t.key);
  p.expect(own.status === 200 && own.body?.id === id, `${t.name} cannot read its own job ${id}`);
  return id;
}

async function waitDone(p: IsolationProbe, t: TenantKey, id: string, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    const r = await p.call('GET', `/v1/jobs/${id}`, t.key);
    if (r.body?.state === 'completed') return true;
    await new Promise((res) => setTimeout(res, 250));
  }
  return false;
}

/** `viewer` against `owner`'s job `id`, over HTTP and gRPC: all must answer "no such job". */
async function jobsAcrossTenants(
  p: IsolationProbe,
  viewer: TenantKey,
  owner: TenantKey,
  id: string,
) {
  const who = `${viewer.name} on ${owner.name}'s job`;
  const unknown = await p.call('GET', `/v1/jobs/${randomUUID()}`, viewer.key);
  for (const [method, path] of [
    ['GET', `/v1/jobs/${id}`],
    ['GET', `/v1/jobs/${id}/results`],
    ['GET', `/v1/jobs/${id}/results?from=0`],
    ['GET', `/v1/jobs/${id}/events`],
    ['DELETE', `/v1/jobs/${id}`],
  ] as const) {
    const r = await p.call(method, path, viewer.key);
    p.expect(
      r.status === 404 && r.body?.error?.code === unknown.body?.error?.code,
      `${who}: ${method} ${path} answered ${r.status} ${JSON.stringify(r.body).slice(0, 200)}`,
    );
  }
  for (const q of [
    '',
    `?tenant=${owner.name}`,
    '?limit=1000',
    `?state=queued&tenant=${owner.name}`,
  ]) {
    const r = await p.call('GET', `/v1/jobs${q}`, viewer.key);
    const ids = Array.isArray(r.body?.jobs)
      ? (r.body.jobs as { id?: string }[]).map((j) => j.id)
      : [];
    p.expect(
      !ids.includes(id) && (r.status === 200 || isClientRefusal(r.status)),
      `${who}: list${q} shows it (${r.status})`,
    );
  }
  for (const method of ['GetJob', 'CancelJob']) {
    const r = await p.unary('jobs', method, { jobId: id }, viewer.key);
    p.expect(r.code === GrpcStatus.NOT_FOUND, `${who}: gRPC ${method} answered ${r.code}`);
  }
  const results = await p.resultsStream(id, viewer.key);
  p.expect(
    results.code === GrpcStatus.NOT_FOUND && results.messages === 0,
    `${who}: gRPC GetJobResults gave ${results.messages} messages, status ${results.code}`,
  );
  const list = await p.unary('jobs', 'ListJobs', { limit: 1000 }, viewer.key);
  const listed = ((list.response?.jobs ?? []) as { id?: string }[]).map((j) => j.id);
  p.expect(!listed.includes(id), `${who}: gRPC ListJobs shows it`);
}

/** Ids an attacker would try, derived from a real one or made up: none may answer 2xx. */
async function guessedJobIds(p: IsolationProbe, a: TenantKey, real: string): Promise<number> {
  const flip = (c: string) => (c === 'a' ? 'b' : 'a');
  const guesses = [
    real.slice(0, -1) + flip(real.slice(-1)),
    real.toUpperCase(),
    ` ${real}`,
    `${real}%20`,
    `..%2F${real}`,
    `%2E%2E%2Fjobs%2F${real}`,
    `${real}}:meta`,
    `{job:${real}}`,
    '*',
    '%2A',
    'undefined',
    'null',
    '0',
    '1',
    '-1',
    '00000000-0000-0000-0000-000000000000',
    ...Array.from({ length: 10 }, () => randomUUID()),
  ];
  for (const g of guesses) {
    for (const method of ['GET', 'DELETE'] as const) {
      const r = await p.call(method, `/v1/jobs/${g}`, a.key);
      p.expect(isClientRefusal(r.status), `guessed id '${g}': ${method} answered ${r.status}`);
    }
    const r = await p.call('GET', `/v1/jobs/${g}/results`, a.key);
    p.expect(isClientRefusal(r.status), `guessed id '${g}': results answered ${r.status}`);
    const g2 = await p.unary('jobs', 'GetJob', { jobId: decodeURIComponent(g) }, a.key);
    p.expect(
      g2.code === GrpcStatus.NOT_FOUND || g2.code === GrpcStatus.INVALID_ARGUMENT,
      `guessed id '${g}': gRPC GetJob ${g2.code}`,
    );
  }
  return guesses.length;
}

/** B cannot reach a task (and route) only A has, by any predict call; it looks like no task. */
async function tasksAcrossTenants(p: IsolationProbe, s: IsolationSetup): Promise<void> {
  const nope = `no-such-task-${Date.now()}`;
  const control = await p.call('POST', '/v1/predict', s.a.key, { task: s.onlyATask, text: 'x' });
  p.expect(
    control.status === 200,
    `control: ${s.a.name} predicts on ${s.onlyATask}: ${control.status}`,
  );
  const unknown = await p.call('POST', '/v1/predict', s.b.key, { task: nope, text: 'x' });
  for (const [path, body] of [
    ['/v1/predict', { task: s.onlyATask, text: 'x' }],
    ['/v1/predict:batch', { task: s.onlyATask, texts: ['x'] }],
    ['/v1/tokenize', { task: s.onlyATask, text: 'x' }],
  ] as const) {
    const r = await p.call('POST', path, s.b.key, body);
    p.expect(
      r.status === 404 && r.body?.error?.code === unknown.body?.error?.code,
      `${s.b.name} ${path} on ${s.a.name}'s task: ${r.status} ${JSON.stringify(r.body).slice(0, 200)}`,
    );
  }
  const spoofs: Record<string, string>[] = [
    { 'x-mesh-tenant': s.a.name },
    { 'x-tenant': s.a.name },
    { 'x-mesh-sticky-key': s.a.name },
  ];
  for (const spoof of spoofs) {
    const r = await p.call('POST', '/v1/predict', s.b.key, { task: s.onlyATask, text: 'x' }, spoof);
    p.expect(r.status === 404, `${s.b.name} with ${JSON.stringify(spoof)}: ${r.status}`);
  }
  const asA = await p.call('POST', '/v1/predict', s.b.key, {
    task: s.onlyATask,
    text: 'x',
    tenant: s.a.name,
  });
  p.expect(asA.status === 400, `${s.b.name} naming tenant ${s.a.name} in the body: ${asA.status}`);
  for (const method of ['Predict', 'Tokenize']) {
    const r = await p.unary('predictor', method, { task: s.onlyATask, text: 'x' }, s.b.key);
    p.expect(
      r.code === GrpcStatus.NOT_FOUND,
      `${s.b.name} gRPC ${method} on ${s.a.name}'s task: ${r.code}`,
    );
  }
  const batch = await p.unary(
    'predictor',
    'PredictBatch',
    { task: s.onlyATask, texts: ['x'] },
    s.b.key,
  );
  p.expect(
    batch.code === GrpcStatus.NOT_FOUND,
    `${s.b.name} gRPC PredictBatch on ${s.a.name}'s task: ${batch.code}`,
  );
  const tasks = await p.call('GET', '/v1/tasks', s.b.key);
  const names = ((tasks.body?.tasks ?? []) as { task?: string }[]).map((t) => t.task);
  p.expect(
    tasks.status === 200 && !names.includes(s.onlyATask),
    `${s.b.name}'s task list shows ${s.onlyATask}`,
  );
  const grpcTasks = await p.unary('predictor', 'ListTasks', {}, s.b.key);
  const grpcNames = ((grpcTasks.response?.tasks ?? []) as { task?: string }[]).map((t) => t.task);
  p.expect(
    grpcTasks.code === GrpcStatus.OK && !grpcNames.includes(s.onlyATask),
    `${s.b.name}'s gRPC task list shows ${s.onlyATask}`,
  );
}

/** Every admin endpoint, read and write, with each tenant's key: refused, and nothing changed. */
async function adminWithTenantKeys(p: IsolationProbe, tenants: TenantKey[], jobId: string) {
  const calls: [string, string, unknown?][] = [
    ['GET', '/v1/admin/table'],
    ['GET', '/v1/admin/routes'],
    ['GET', '/v1/admin/tenants'],
    ['GET', '/v1/admin/audit'],
    ['GET', '/v1/admin/jobs'],
    ['GET', `/v1/admin/jobs/${jobId}`],
    ['DELETE', `/v1/admin/jobs/${jobId}`],
    [
      'PUT',
      '/v1/admin/routes',
      {
        tenant: '*',
        task: 'sentiment',
        model: 'sentiment-en',
        versions: [{ version: 1, weight: 1 }],
      },
    ],
    ['DELETE', '/v1/admin/routes/acme/intent'],
    [
      'PUT',
      '/v1/admin/tenants',
      { name: 'evil', keySha256: ['0'.repeat(64)], allowedTasks: ['*'] },
    ],
    ['DELETE', '/v1/admin/tenants/globex'],
    ['POST', '/v1/admin/reseed', {}],
  ];
  for (const t of tenants) {
    for (const [method, path, body] of calls) {
      const r = await p.call(method, path, t.key, body);
      p.expect(
        r.status === 401 || r.status === 403,
        `${t.name}'s key on ${method} ${path}: ${r.status}`,
      );
    }
  }
}
