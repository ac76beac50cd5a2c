import { resolve } from 'node:path';
import { PipelineRegistry, type PipelineDefinition } from '@mesh/preprocessing';
import { z } from 'zod';
import { UsageError, parseCliArgs } from '../cli-args';
import { addModelVersion, type ModelAddOptions } from './model-add.service';
import { ModelCliError } from './model-cli.errors';
import { formatAddResult, formatCheckReports } from './model-cli.summary';
import { checkRepository, problemCount } from './model-check.service';

export const MODEL_USAGE = [
  'usage: npm run mesh -- model add --repository <dir> --name <model> [--version N]',
  '         --onnx model.onnx --tokenizer tokenizer.json --labels labels.txt',
  '         [--pipeline bert-wordpiece@2] [--max-length 128] [--kind classification|embedding]',
  '         [--max-batch-size 32] [--output <name>] [--pooling mean|cls] [--force]',
  '       npm run mesh -- model check --repository <dir> [--name <model>]',
].join('\n');

const positive = (flag: string) =>
  z.coerce
    .number({ invalid_type_error: `--${flag} must be a number` })
    .int(`--${flag} must be an integer`)
    .positive(`--${flag} must be a positive integer`);

const required = (flag: string) =>
  z.string({ required_error: `--${flag} is required` }).min(1, `--${flag} must not be empty`);

const modelName = required('name').regex(
  /^[A-Za-z0-9][A-Za-z0-9_.-]*$/,
  '--name must be letters, digits, "_", "-" or "." (a directory name)',
);

const addSchema = z.object({
  repository: required('repository'),
  name: modelName,
  version: positive('version').optional(),
  onnx: required('onnx'),
  tokenizer: required('tokenizer'),
  labels: z.string().optional(),
  pipeline: z
    .string()
    .regex(/^[a-z0-9-]+@[1-9][0-9]*$/, '--pipeline must look like bert-wordpiece@2')
    .default('bert-wordpiece@2'),
  'max-length': positive('max-length').max(8192, '--max-length must be at most 8192').default(128),
  kind: z
    .enum(['classification', 'embedding'], {
      errorMap: () => ({ message: '--kind must be classification or embedding' }),
    })
    .default('classification'),
  'max-batch-size': positive('max-batch-size').default(32),
  output: z.string().min(1).optional(),
  pooling: z
    .enum(['mean', 'cls'], { errorMap: () => ({ message: '--pooling must be mean or cls' }) })
    .default('mean'),
  force: z.boolean().default(false),
});

const checkSchema = z.object({ repository: required('repository'), name: modelName.optional() });

const STRING_FLAGS = [
  'repository',
  'name',
  'version',
  'onnx',
  'tokenizer',
  'labels',
  'pipeline',
  'max-length',
  'kind',
  'max-batch-size',
  'output',
  'pooling',
] as const;

function parseFlags<S extends z.ZodTypeAny>(args: string[], schema: S): z.output<S> {
  let values: Record<string, unknown>;
  try {
    const options = Object.fromEntries(STRING_FLAGS.map((f) => [f, { type: 'string' as const }]));
    values = parseCliArgs({ args, options: { ...options, force: { type: 'boolean' } } }).values;
  } catch (err: unknown) {
    if (!(err instanceof UsageError)) throw err;
    throw new ModelCliError('USAGE', `${err.message}\n${MODEL_USAGE}`);
  }
  const result = schema.safeParse(values);
  if (!result.success) {
    const issues = result.error.issues.map((i) => i.message).join('; ');
    throw new ModelCliError('USAGE', `${issues}\n${MODEL_USAGE}`);
  }
  return result.data as z.output<S>;
}

function pipelineOf(id: string): PipelineDefinition {
  const registry = new PipelineRegistry();
  const [name = '', version = ''] = id.split('@');
  const pipeline = registry.get(name, Number(version));
  if (!pipeline) {
    const known = registry.list().map((p) => p.id);
    throw new ModelCliError(
      'USAGE',
      `--pipeline ${id} is not in this build (it has ${known.join(', ')})`,
    );
  }
  return pipeline;
}

async function add(args: string[]): Promise<number> {
  const f = parseFlags(args, addSchema);
  const options: ModelAddOptions = {
    repository: resolve(f.repository),
    name: f.name,
    version: f.version,
    onnx: resolve(f.onnx),
    tokenizer: resolve(f.tokenizer),
    labels: f.labels === undefined ? undefined : resolve(f.labels),
    pipeline: pipelineOf(f.pipeline),
    maxLength: f['max-length'],
    kind: f.kind,
    maxBatchSize: f['max-batch-size'],
    output: f.output,
    pooling: f.pooling,
    force: f.force,
  };
  console.log(formatAddResult(await addModelVersion(options), f.repository));
  return 0;
}

async function check(args: string[]): Promise<number> {
  const f = parseFlags(args, checkSchema);
  const reports = await checkRepository(resolve(f.repository), f.name);
  console.log(formatCheckReports(reports));
  const problems = problemCount(reports);
  const versions = reports.reduce((n, r) => n + r.versions.length, 0);
  console.log(`checked ${reports.length} model(s), ${versions} version(s): ${problems} problem(s)`);
  return problems === 0 ? 0 : 1;
}

/** `mesh model <add|check> ...`; resolves to the process exit code. */
export async function runModelCommand(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  try {
    if (sub === 'add') return await add(rest);
    if (sub === 'check') return await check(rest);
    throw new ModelCliError('USAGE', MODEL_USAGE);
  } catch (err: unknown) {
    if (!(err instanceof ModelCliError)) throw err;
    console.error(err.message);
    return err.exitCode;
  }
}
