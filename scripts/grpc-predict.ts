/**
 * `npm run grpc -- --task T --text S [--text S2 …]`: a small client of the router's gRPC API
 * (`mesh.v1.Predictor`, loaded from proto/mesh/v1 at run time, as any client would).
 *   one --text         Predict (with --text-pair P for a pair task)
 *   several --text     PredictBatch, results in input order
 *   --key K            the tenant's API key (else MESH_API_KEY, else the demo key acme-demo-key)
 *   --address H:P      the router's gRPC port (else MESH_GRPC_ADDRESS, else 127.0.0.1:50051)
 *   --deadline-ms N    how long to wait for the answer (default 30000)
 * Prints the answer as JSON. A gRPC error prints its status name, the mesh error code and the
 * message and exits 1; bad arguments exit 2. Plaintext only (the router's default).
 */
import {
  credentials,
  loadPackageDefinition,
  Metadata,
  status,
  type CallOptions,
  type ClientUnaryCall,
  type ServiceClientConstructor,
  type ServiceError,
} from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import { join } from 'node:path';
import { USAGE_EXIT_CODE, UsageError, parseCliArgs } from './cli-args';

/** The demo tenant key the README's quick start uses (deploy/config/mesh.yaml). */
export const DEMO_KEY = 'acme-demo-key';
export const DEFAULT_ADDRESS = '127.0.0.1:50051';
const DEFAULT_DEADLINE_MS = 30_000;
/** As large as the router's own limit, so a big PredictBatch answer is not refused here. */
const MAX_MESSAGE_BYTES = 64 * 1024 * 1024;
const PROTO = join(__dirname, '..', 'proto', 'mesh', 'v1', 'predictor.proto');

export const GRPC_PREDICT_USAGE = [
  'usage: npm run grpc -- --task T --text S [--text S2 …] [--text-pair P]',
  '         [--key K] [--address host:port] [--deadline-ms N]',
  '  one --text: Predict; several: PredictBatch. Key: --key, MESH_API_KEY or acme-demo-key.',
  '  Address: --address, MESH_GRPC_ADDRESS or 127.0.0.1:50051.',
].join('\n');

export interface GrpcPredictOptions {
  task: string;
  texts: string[];
  textPair?: string;
  key: string;
  /** `host:port` (a `grpc://` prefix, as `npm run up` prints the address, is dropped). */
  address: string;
  deadlineMs: number;
}

/** Arguments that are not a valid call; the message says which. */
export { UsageError };

function readFlags(argv: string[]) {
  return parseCliArgs({
    args: argv,
    options: {
      task: { type: 'string' },
      text: { type: 'string', multiple: true },
      'text-pair': { type: 'string' },
      key: { type: 'string' },
      address: { type: 'string' },
      'deadline-ms': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  }).values;
}

/** Reads the command line (after `--`); `'help'` for --help. Throws UsageError. */
export function parseGrpcPredictArgs(
  argv: string[],
  env: NodeJS.ProcessEnv = process.env,
): GrpcPredictOptions | 'help' {
  const values = readFlags(argv);
  if (values.help) return 'help';
  const problems: string[] = [];
  const task = values.task ?? '';
  if (!task) problems.push('--task is required');
  const texts = values.text ?? [];
  if (texts.length === 0) problems.push('--text is required (once for Predict, more for a batch)');
  const textPair = values['text-pair'];
  if (textPair !== undefined && texts.length > 1) {
    problems.push('--text-pair goes with a single --text (PredictBatch takes no pairs)');
  }
  const key = values.key ?? (env.MESH_API_KEY || DEMO_KEY);
  if (!key) problems.push('--key must not be empty');
  const address = (values.address ?? (env.MESH_GRPC_ADDRESS || DEFAULT_ADDRESS)).replace(
    /^grpc:\/\//,
    '',
  );
  if (!/^[^\s/]+:\d+$/.test(address))
    problems.push(`--address must be host:port (got "${address}")`);
  const deadline = values['deadline-ms'];
  const deadlineMs = deadline === undefined ? DEFAULT_DEADLINE_MS : Number(deadline);
  if (!Number.isInteger(deadlineMs) || deadlineMs <= 0) {
    problems.push(`--deadline-ms must be a positive integer (got "${deadline}")`);
  }
  if (problems.length > 0) throw new UsageError(problems.join('; '));
  return { task, texts, ...(textPair === undefined ? {} : { textPair }), key, address, deadlineMs };
}

interface LabelScore {
  label: string;
  score: number;
}

interface Prediction {
  label?: string;
  score?: number;
  scores?: LabelScore[];
  embedding?: number[];
}

interface PredictResponse {
  model: string;
  version: number;
  prediction: Prediction;
  latencyMs: number;
}

interface PredictBatchResponse {
  model: string;
  version: number;
  results: Prediction[];
  latencyMs: number;
}

type Unary<Req, Res> = (
  request: Req,
  metadata: Metadata,
  options: CallOptions,
  callback: (error: ServiceError | null, response?: Res) => void,
) => ClientUnaryCall;

interface PredictorClient {
  Predict: Unary<{ task: string; text: string; textPair?: string }, PredictResponse>;
  PredictBatch: Unary<{ task: string; texts: string[] }, PredictBatchResponse>;
  close(): void;
}

function predictorClient(address: string): PredictorClient {
  const definition = loadSync(PROTO, {
    keepCase: false,
    longs: Number,
    enums: String,
    defaults: true,
    oneofs: true,
  });
  const pkg = loadPackageDefinition(definition) as unknown as {
    mesh: { v1: { Predictor: ServiceClientConstructor } };
  };
  const client = new pkg.mesh.v1.Predictor(address, credentials.createInsecure(), {
    'grpc.max_receive_message_length': MAX_MESSAGE_BYTES,
    'grpc.max_send_message_length': MAX_MESSAGE_BYTES,
  });
  return client as unknown as PredictorClient;
}

/** A classification answer without the empty embedding, an embedding without empty labels. */
function tidy(p: Prediction): Prediction {
  if (p.embedding && p.embedding.length > 0) return { embedding: p.embedding };
  return { label: p.label, score: p.score, scores: p.scores };
}

/** Calls Predict (one text) or PredictBatch (several); rejects with the gRPC ServiceError. */
export async function grpcPredict(
  options: GrpcPredictOptions,
): Promise<PredictResponse | PredictBatchResponse> {
  const client = predictorClient(options.address);
  const metadata = new Metadata();
  metadata.set('authorization', `Bearer ${options.key}`);
  const callOptions: CallOptions = { deadline: Date.now() + options.deadlineMs };
  const settle =
    <T>(resolve: (v: T) => void, reject: (e: ServiceError) => void) =>
    (error: ServiceError | null, response?: T) =>
      error || response === undefined ? reject(error ?? unexpectedEmpty()) : resolve(response);
  try {
    const [text, ...more] = options.texts;
    if (text !== undefined && more.length === 0) {
      const request = {
        task: options.task,
        text,
        ...(options.textPair === undefined ? {} : { textPair: options.textPair }),
      };
      const answer = await new Promise<PredictResponse>((resolve, reject) =>
        client.Predict(request, metadata, callOptions, settle(resolve, reject)),
      );
      return { ...answer, prediction: tidy(answer.prediction) };
    }
    const answer = await new Promise<PredictBatchResponse>((resolve, reject) =>
      client.PredictBatch(
        { task: options.task, texts: options.texts },
        metadata,
        callOptions,
        settle(resolve, reject),
      ),
    );
    return { ...answer, results: answer.results.map(tidy) };
  } finally {
    client.close();
  }
}

function unexpectedEmpty(): ServiceError {
  return Object.assign(new Error('the router answered nothing'), {
    code: status.INTERNAL,
    details: 'the router answered nothing',
    metadata: new Metadata(),
  });
}

export function isServiceError(err: unknown): err is ServiceError {
  return (
    err instanceof Error &&
    typeof (err as Partial<ServiceError>).code === 'number' &&
    (err as Partial<ServiceError>).metadata instanceof Metadata
  );
}

/** `NOT_FOUND (TASK_NOT_FOUND): <message>`: the gRPC status name, the mesh code, the message. */
export function describeGrpcError(err: ServiceError): string {
  const name = status[err.code] ?? `status ${err.code}`;
  const meshCode = err.metadata.get('x-mesh-error-code')[0];
  const code = meshCode === undefined ? '' : ` (${String(meshCode)})`;
  return `${name}${code}: ${err.details || err.message}`;
}

export async function main(argv: string[]): Promise<number> {
  let options: GrpcPredictOptions | 'help';
  try {
    options = parseGrpcPredictArgs(argv);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    console.error(`${err.message}\n${GRPC_PREDICT_USAGE}`);
    return USAGE_EXIT_CODE;
  }
  if (options === 'help') {
    console.log(GRPC_PREDICT_USAGE);
    return 0;
  }
  try {
    console.log(JSON.stringify(await grpcPredict(options), null, 2));
    return 0;
  } catch (err) {
    if (!isServiceError(err)) throw err;
    console.error(`gRPC error ${describeGrpcError(err)}`);
    return 1;
  }
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    // exitCode rather than exit(): a large answer on a pipe is written out before the end.
    (code) => (process.exitCode = code),
    (err: unknown) => {
      console.error(err instanceof Error ? err.message : String(err));
      process.exit(1);
    },
  );
}
