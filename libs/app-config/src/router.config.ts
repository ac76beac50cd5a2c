import {
  commonEnv,
  fraction,
  intBetween,
  loadConfig,
  port,
  positiveInt,
  redisEnv,
  redisIssues,
} from '@mesh/config';
import { jobsEnv } from '@mesh/jobs';
import {
  grpcServerTlsEnv,
  grpcServerTlsIssues,
  kserveClientEnv,
  kserveClientIssues,
} from '@mesh/kserve';
import { z } from 'zod';

const routerEnv = {
  ...commonEnv,
  ...redisEnv,
  ROUTER_HTTP_PORT: port(8080),
  ROUTER_GRPC_PORT: port(50051),
  MODEL_REPOSITORY: z.string().min(1).default('./model_repository'),
  /** The backends and how to reach them: KSERVE_ENDPOINTS, KSERVE_TLS_*, retries, breaker. */
  ...kserveClientEnv,
  /** TLS of the router's own gRPC port (cert + key; client CA for mutual TLS). */
  ...grpcServerTlsEnv('ROUTER_GRPC'),
  MESH_CONFIG: z.string().min(1).default('deploy/config/mesh.yaml'),
  /** Empty disables the admin API (every admin call answers 403). */
  ADMIN_API_KEY: z.string().default(''),
  /** The name the audit log records for edits made through the admin API. */
  ADMIN_ACTOR: z
    .string()
    .regex(/^[\x21-\x7E]{1,64}$/, 'must be 1-64 printable characters without spaces')
    .default('admin'),
  /** Largest accepted HTTP body / gRPC request message. */
  ROUTER_BODY_LIMIT_BYTES: positiveInt(4 * 1024 * 1024),
  /** Upper bound of a sync batch; the effective bound is also capped by the message size. */
  ROUTER_MAX_BATCH: positiveInt(256, 4096),
  /** Safety-net reload period of the routing table (pub/sub does the fast path). */
  ROUTER_ROUTES_REFRESH_MS: positiveInt(5000),
  /**
   * Pad each request's token tensors up to a multiple of this many tokens (capped at the
   * version's maxLength; 0 = to the request's own length). Real Triton batches only requests
   * of equal shape, so behind Triton 16 or 32 lets concurrent requests share a batch; the
   * embedded host pads batches itself, where buckets only add compute.
   */
  ROUTER_PAD_MULTIPLE: intBetween(0, 4096).default(0),
  /**
   * Request coalescing (ADR 0012): concurrent single predicts of one model version, in the
   * same length bucket, go to the backend as one batched ModelInfer. `off` sends one call each.
   */
  ROUTER_COALESCE: z.enum(['on', 'off']).default('on'),
  /**
   * Calls per version in flight before new predicts wait to be merged (none wait below it).
   * Unset: the serving backends' instance count for the version (ModelConfig instance_group,
   * summed) + 1, or 2 while it is unknown (ADR 0012).
   */
  ROUTER_COALESCE_IN_FLIGHT: intBetween(1, 1024).optional(),
  /** Most predicts in one merged call (also capped by the model's max_batch_size). */
  ROUTER_COALESCE_MAX_ROWS: positiveInt(64, 4096),
  /**
   * Most padded tokens (rows × bucketed length) in one merged call. A merged call runs as one
   * batch, so its size bounds how long each of its callers waits: 512 (16 short texts, or 4 at
   * 128 tokens) cut the p99 of mixed texts by 15–39 % against 8192, at the same throughput, on
   * a 2-core CPU host (ADR 0012). A backend that runs large batches at little extra latency
   * (a GPU) can take more.
   */
  ROUTER_COALESCE_MAX_TOKENS: positiveInt(512, 1_048_576),
  /**
   * Length bucket in tokens: only predicts whose lengths round up to the same multiple merge, and
   * a merged call is padded to its longest member, so the bucket bounds the padding it adds (a
   * 16-token bucket padded short texts by about a fifth and cost the host that much CPU).
   * At or below ROUTER_PAD_MULTIPLE, every member of a merged call has the same padded length.
   */
  ROUTER_COALESCE_BUCKET: positiveInt(4, 4096),
  /** Share (0-1) of successful requests written to the access log; errors are always written. */
  ROUTER_ACCESS_LOG_SAMPLE: fraction(1),
  ...jobsEnv,
  /** Items per stored chunk (one BullMQ child job each). */
  JOBS_CHUNK_SIZE: positiveInt(512, 100_000),
  /** Most items one job may have. */
  JOBS_MAX_ITEMS: positiveInt(1_000_000),
  /** Most bytes of one NDJSON upload (streamed, so not bound by ROUTER_BODY_LIMIT_BYTES). */
  JOBS_MAX_UPLOAD_BYTES: positiveInt(512 * 1024 * 1024),
  /** Longest NDJSON line. */
  JOBS_MAX_LINE_BYTES: positiveInt(1024 * 1024),
  /** Quota defaults for tenants whose mesh.yaml entry sets no `jobs` quota. */
  JOBS_DEFAULT_MAX_QUEUED_ITEMS: positiveInt(2_000_000),
  JOBS_DEFAULT_MAX_CONCURRENT_JOBS: positiveInt(10),
  /**
   * Open result and event streams wake on the job's change notices (pub/sub); without one
   * (a notice lost to a reconnect) they look again after this long.
   */
  JOBS_STREAM_POLL_MS: positiveInt(2000),
  /** This router's id in heartbeats; default `<hostname>-<pid>-<random>`. */
  ROUTER_ID: z
    .string()
    .regex(/^[A-Za-z0-9._:-]{1,128}$/, 'must be 1-128 of A-Z a-z 0-9 . _ : -')
    .optional(),
  /** How often the routable-set heartbeat is published (its TTL is 3 periods, at least 3 s). */
  ROUTER_HEARTBEAT_INTERVAL_MS: positiveInt(1000),
  /** Length of one traffic-signal bucket in Redis (readers use the same). */
  ROUTER_SIGNAL_BUCKET_MS: positiveInt(5000),
  /** How often in-memory traffic signals are written to Redis. */
  ROUTER_SIGNAL_FLUSH_MS: positiveInt(1000),
  /**
   * `off` stops recording per-version traffic signals in Redis, for installs whose rollouts read
   * Prometheus instead (and to measure what recording costs). Heartbeats are kept either way.
   */
  ROUTER_TRAFFIC_SIGNALS: z.enum(['on', 'off']).default('on'),
  /**
   * How long a request for a routed version resident on no backend waits for the placer to
   * load it (cold start) before answering 503 MODEL_LOADING with Retry-After; 0 answers at
   * once (the load is still asked for). At most 10 minutes: callers and proxies give up sooner.
   */
  ROUTER_COLD_START_WAIT_MS: intBetween(0, 600_000).default(30_000),
};

export type RouterConfig = ReturnType<typeof loadRouterConfig>;

export function loadRouterConfig(env: NodeJS.ProcessEnv = process.env) {
  return loadConfig('router', routerEnv, env, (c) => [
    ...redisIssues(c),
    ...kserveClientIssues(c),
    ...grpcServerTlsIssues(c, 'ROUTER_GRPC'),
  ]);
}
