import { z } from 'zod';
import {
  commaList,
  ConfigError,
  commonEnv,
  fraction,
  intBetween,
  loadConfig,
  port,
  positiveInt,
  type ConfigIssue,
} from '@mesh/config';
import { grpcServerTlsEnv, grpcServerTlsIssues } from '@mesh/kserve';

const hostEnv = {
  ...commonEnv,
  MODEL_REPOSITORY: z.string().min(1, 'must not be empty').default('./model_repository'),
  MODEL_CONTROL_MODE: z.enum(['none', 'explicit']).default('none'),
  /** Comma-separated model names to load at start in explicit mode (`*` = all). */
  LOAD_MODELS: z.string().default(''),
  MODEL_HOST_HTTP_PORT: port(8000),
  MODEL_HOST_GRPC_PORT: port(8001),
  MODEL_HOST_METRICS_PORT: port(8002),
  GRPC_MAX_MESSAGE_BYTES: positiveInt(64 * 1024 * 1024, 2 ** 31 - 1),
  /**
   * Per session (one per instance). Unset: os.availableParallelism() ÷ the version's instance
   * count (at least 1), so N instances never oversubscribe the cores they are given.
   */
  ORT_INTRA_OP_THREADS: intBetween(1, 256).optional(),
  ORT_INTER_OP_THREADS: positiveInt(1, 256),
  /**
   * Intra-op threads of each version's lone-batch session (a batch that would run alone — every
   * instance idle, nothing queued — takes every core instead of one instance's share); 0 = no
   * such session. Unset: os.availableParallelism() when the version runs several instances with
   * fewer threads each, else 0. config.pbtxt's `lone_batch_threads` overrides it per model.
   */
  ORT_LONE_BATCH_THREADS: intBetween(0, 256).optional(),
  ORT_GRAPH_OPTIMIZATION_LEVEL: z.enum(['disabled', 'basic', 'extended', 'all']).default('all'),
  /**
   * Whether every session's thread pools (instances and the lone-batch session) spin-wait for
   * the next operator's work while a run is in progress. The worker always sets
   * `session.force_spinning_stop`, so the spinning ends as each run returns and an idle host
   * burns nothing; during a run it saves waking each thread per operator, which is most of a
   * lone request's cost on 1–2 threads (ADR 0013). `0`/`false` makes them sleep between
   * operators (a model's `allow_spinning` parameter overrides this either way).
   */
  ORT_ALLOW_SPINNING: z.enum(['0', '1', 'false', 'true']).default('1'),
  /**
   * Whether instance sessions keep spinning after a run for ORT's own bounded spell (some tens
   * of ms) before parking, as ORT does by default, instead of stopping as the run returns. A
   * steady stream of lone requests then finds the pool threads awake; an idle host still parks
   * them. The lone-batch session always stops. A model's `spin_between_runs` overrides it.
   */
  ORT_SPIN_BETWEEN_RUNS: z.enum(['0', '1', 'false', 'true']).default('1'),
  /**
   * Nice value (0–19) of every session's intra-op pool threads on Linux; 0 leaves them at the
   * host's. Their spinning then gives way to the host's event loop and to anything else on the
   * cores as soon as that wakes, while a run still gets every core nobody else wants (ADR 0004).
   * The worker thread that runs each session keeps its priority where the process may lower a
   * nice value again (CAP_SYS_NICE); without that it runs at this value too, and the host warns.
   */
  ORT_POOL_THREAD_NICE: intBetween(0, 19).default(19),
  SHUTDOWN_DRAIN_MS: positiveInt(8000, 600_000),
  /**
   * Resident memory (MB) the host lets its loaded versions add up to; a load that would pass it
   * is refused (RESOURCE_EXHAUSTED). Unset or empty: unlimited. Published to placers in
   * ServerMetadata's extensions as `memory_budget_mb=<N>`.
   */
  MODEL_HOST_MEMORY_BUDGET_MB: z.preprocess(
    (v) => (typeof v === 'string' && v.trim() === '' ? undefined : v),
    z.coerce
      .number({ invalid_type_error: 'must be a number' })
      .finite('must be a finite number')
      .positive('must be a positive number of MB')
      .optional(),
  ),
  /** Share (0-1) of successful inferences written to the access log; failures always are. */
  MODEL_HOST_ACCESS_LOG_SAMPLE: fraction(1),
  /** TLS of the KServe gRPC port (cert + key; client CA for mutual TLS). */
  ...grpcServerTlsEnv('MODEL_HOST_GRPC'),
};

export type ModelHostConfig = ReturnType<typeof loadConfig<typeof hostEnv>> & {
  loadModels: string[];
};

/**
 * Triton's flags (`--model-repository`, `--model-control-mode`, `--load-model`, repeatable)
 * folded into the environment they override; unknown or malformed flags are issues.
 */
export function flagsToEnv(argv: readonly string[]): {
  env: Record<string, string>;
  issues: ConfigIssue[];
} {
  const env: Record<string, string> = {};
  const issues: ConfigIssue[] = [];
  const loads: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    const m = /^--([a-z-]+)(?:=(.*))?$/.exec(arg);
    const known = ['model-repository', 'model-control-mode', 'load-model'].includes(m?.[1] ?? '');
    const next = argv[i + 1];
    const takesNext = known && m?.[2] === undefined && next !== undefined && !next.startsWith('--');
    const value = m?.[2] ?? (takesNext ? next : undefined);
    if (takesNext) i++;
    switch (m?.[1]) {
      case 'model-repository':
        if (value !== undefined) env.MODEL_REPOSITORY = value;
        break;
      case 'model-control-mode':
        if (value !== undefined) env.MODEL_CONTROL_MODE = value;
        break;
      case 'load-model':
        if (value) loads.push(value);
        break;
      case undefined:
      default:
        issues.push({
          variable: arg,
          reason: 'unknown flag (known: --model-repository, --model-control-mode, --load-model)',
        });
        continue;
    }
    if (value === undefined || value === '')
      issues.push({ variable: `--${m?.[1]}`, reason: 'needs a value' });
  }
  if (loads.length > 0) env.LOAD_MODELS = loads.join(',');
  return { env, issues };
}

export function loadModelHostConfig(
  env: NodeJS.ProcessEnv = process.env,
  argv: readonly string[] = process.argv.slice(2),
): ModelHostConfig {
  const flags = flagsToEnv(argv);
  let config: ReturnType<typeof loadConfig<typeof hostEnv>> | undefined;
  let issues = [...flags.issues];
  try {
    config = loadConfig('model-host', hostEnv, { ...env, ...flags.env }, (c) =>
      grpcServerTlsIssues(c, 'MODEL_HOST_GRPC'),
    );
  } catch (err: unknown) {
    if (!(err instanceof ConfigError)) throw err;
    issues = [...issues, ...err.issues];
  }
  if (!config || issues.length > 0) throw new ConfigError('model-host', issues);
  const loadModels = commaList(config.LOAD_MODELS);
  if (config.MODEL_CONTROL_MODE === 'none' && loadModels.length > 0) {
    throw new ConfigError('model-host', [
      { variable: '--load-model', reason: 'only allowed with --model-control-mode=explicit' },
    ]);
  }
  return { ...config, loadModels };
}
