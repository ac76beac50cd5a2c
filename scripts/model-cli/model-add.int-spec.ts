import { createHash } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import {
  ModelRepositoryReader,
  parseModelConfigDetailed,
  readPreprocessManifest,
} from '@mesh/model-repository';
import { PreprocessingService } from '@mesh/preprocessing';
import {
  addArgs,
  DEMO,
  runModelCli,
  stripDemoModel,
  vocabularySize,
  writeVariantModel,
  type ExportedFiles,
} from './testing/exported-model.fixture';

// Each case runs the CLI as its own process (tsx + onnxruntime) on a shared machine.
jest.setTimeout(180_000);

let work: string;
let exported: ExportedFiles;

const MEMORY_PARAMETER =
  /parameters \{\n {2}key: "memory_mb_v\d+"\n {2}value: \{ string_value: "(\d+)" \}\n\}\n/g;

/** config.pbtxt without its measured memory_mb_v<N> entries: the rest is deterministic. */
const withoutMemory = (text: string) => text.replace(MEMORY_PARAMETER, '');

/** The memory_mb_v<version> value written, as a number (undefined when absent). */
function memoryMb(text: string, version: number): number | undefined {
  const m = new RegExp(
    `key: "memory_mb_v${version}"\\n {2}value: \\{ string_value: "(\\d+)" \\}`,
  ).exec(text);
  return m ? Number(m[1]) : undefined;
}

/**
 * Every file under `dir` (hidden ones included) with its sha256, by relative path; a
 * config.pbtxt without its measured memory (which differs run to run by allocator pages).
 */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const path = join(d, name);
      if (statSync(path).isDirectory()) walk(path);
      else {
        const bytes = readFileSync(path);
        const hashed = name === 'config.pbtxt' ? withoutMemory(bytes.toString('utf8')) : bytes;
        out[relative(dir, path)] = createHash('sha256').update(hashed).digest('hex');
      }
    }
  };
  walk(dir);
  return out;
}

const read = (path: string) => readFileSync(path, 'utf8');

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'model-add-'));
  exported = stripDemoModel(join(work, 'export'));
});

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('mesh model add into an empty repository', () => {
  let repo: string;

  beforeAll(() => {
    repo = join(work, 'empty-repo');
  });

  it('writes a new model whose files are what the generator writes for the same model', async () => {
    const run = await runModelCli(
      addArgs(repo, 'sentiment-byo', exported, ['--max-batch-size', '64']),
    );
    expect(run.stderr).not.toMatch(/PROBLEM|refused/);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('added the new model sentiment-byo with version 1');
    expect(run.stdout).toMatch(
      /padding invariance: max \|batch 4 - batch 1\| = \S+ \(limit 1e-4\)/,
    );
    expect(run.stdout).toContain('probe predictions:');
    expect(run.stdout).toContain('labels:    3 (negative, neutral, positive)');

    expect(Object.keys(snapshot(repo)).sort()).toEqual([
      'sentiment-byo/1/model.onnx',
      'sentiment-byo/1/preprocess.json',
      'sentiment-byo/1/tokenizer.json',
      'sentiment-byo/config.pbtxt',
      'sentiment-byo/labels.txt',
    ]);
    const demo = join(DEMO, 'sentiment-en');
    const config = read(join(repo, 'sentiment-byo', 'config.pbtxt'));
    expect(withoutMemory(config)).toBe(
      read(join(demo, 'config.pbtxt')).replace('name: "sentiment-en"', 'name: "sentiment-byo"'),
    );
    // The measured load of every instance and the lone-batch session: at least the weights once.
    const weightsMb = statSync(exported.onnx).size / (1024 * 1024);
    expect(memoryMb(config, 1)).toBeGreaterThanOrEqual(Math.floor(weightsMb));
    expect(run.stdout).toContain(`memory:    memory_mb_v1 = ${memoryMb(config, 1)} (measured load`);
    expect(read(join(repo, 'sentiment-byo', '1', 'preprocess.json'))).toBe(
      read(join(demo, '1', 'preprocess.json')),
    );
    expect(read(join(repo, 'sentiment-byo', 'labels.txt'))).toBe(read(join(demo, 'labels.txt')));
  });

  it("passes the project's own config, manifest and preprocessing validation", async () => {
    const entries = await new ModelRepositoryReader(repo).readAll();
    expect(entries.map((e) => [e.name, e.error, e.warnings, e.versionsSelected])).toEqual([
      ['sentiment-byo', undefined, [], [1]],
    ]);
    const entry = entries[0]!;
    const text = read(join(repo, 'sentiment-byo', 'config.pbtxt'));
    expect(parseModelConfigDetailed(text, 'config.pbtxt').ignoredFields).toEqual([]);
    const versionDir = join(repo, 'sentiment-byo', '1');
    const manifest = await readPreprocessManifest(versionDir);
    const modelSha = createHash('sha256').update(readFileSync(exported.onnx)).digest('hex');
    expect(manifest.model.sha256).toBe(modelSha);
    expect(entry.config!.parameters.model_sha256_v1?.stringValue).toBe(modelSha);
    const preprocessor = await new PreprocessingService().load({
      model: 'sentiment-byo',
      version: 1,
      versionDir,
      manifest,
      config: entry.config!,
      labels: entry.labels?.logits,
    });
    expect(preprocessor.encode([{ text: 'hello world' }]).tensors.map((t) => t.name)).toEqual([
      'input_ids',
      'attention_mask',
      'token_type_ids',
    ]);
  });

  it('passes mesh model check', async () => {
    const run = await runModelCli(['check', '--repository', repo]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('ok sentiment-byo/1');
    expect(run.stdout).toContain('checked 1 model(s), 1 version(s): 0 problem(s)');
  });

  it('refuses an existing version without --force and changes nothing', async () => {
    const before = snapshot(repo);
    const run = await runModelCli(addArgs(repo, 'sentiment-byo', exported, ['--version', '1']));
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      `sentiment-byo/1 already exists in ${repo}; pass --force to replace it, or choose another --version`,
    );
    expect(snapshot(repo)).toEqual(before);
  });

  it('rewrites byte for byte when run twice with --force', async () => {
    const before = snapshot(repo);
    const force = ['--version', '1', '--force', '--max-batch-size', '64'];
    const first = await runModelCli(addArgs(repo, 'sentiment-byo', exported, force));
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('replaced version 1 of the existing model sentiment-byo');
    const afterFirst = snapshot(repo);
    const second = await runModelCli(addArgs(repo, 'sentiment-byo', exported, force));
    expect(second.code).toBe(0);
    expect(snapshot(repo)).toEqual(afterFirst);
    expect(afterFirst).toEqual(before);
  });
});

describe('mesh model add to a repository where the model exists', () => {
  it('adds the next version to the existing config and keeps its labels', async () => {
    const repo = join(work, 'existing-repo');
    cpSync(join(DEMO, 'sentiment-en'), join(repo, 'sentiment-en'), { recursive: true });
    const configBefore = read(join(repo, 'sentiment-en', 'config.pbtxt'));
    const labelsBefore = read(join(repo, 'sentiment-en', 'labels.txt'));
    const run = await runModelCli(addArgs(repo, 'sentiment-en', exported));
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('added version 2 of the existing model sentiment-en');
    const sha = createHash('sha256').update(readFileSync(exported.onnx)).digest('hex');
    const config = read(join(repo, 'sentiment-en', 'config.pbtxt'));
    expect(config).toBe(
      `${configBefore}parameters {\n  key: "model_sha256_v2"\n  value: { string_value: "${sha}" }\n}\n` +
        `parameters {\n  key: "memory_mb_v2"\n  value: { string_value: "${memoryMb(config, 2)}" }\n}\n`,
    );
    expect(memoryMb(config, 2)).toBeGreaterThanOrEqual(1);
    expect(memoryMb(config, 1)).toBeUndefined();
    expect(read(join(repo, 'sentiment-en', 'labels.txt'))).toBe(labelsBefore);
    const entry = await new ModelRepositoryReader(repo).readModel('sentiment-en');
    expect(entry?.versionsSelected).toEqual([1, 2]);
    const check = await runModelCli(['check', '--repository', repo, '--name', 'sentiment-en']);
    expect(check.code).toBe(0);
    expect(check.stdout).toContain('checked 1 model(s), 2 version(s): 0 problem(s)');
  });

  it('refuses labels that differ from the model’s label file', async () => {
    const repo = join(work, 'existing-labels');
    cpSync(join(DEMO, 'sentiment-en'), join(repo, 'sentiment-en'), { recursive: true });
    const labels = join(work, 'reordered-labels.txt');
    writeFileSync(labels, 'positive\nneutral\nnegative\n');
    const before = snapshot(repo);
    const run = await runModelCli(
      addArgs(repo, 'sentiment-en', { ...exported, labels }, ['--version', '2']),
    );
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('the labels differ from sentiment-en/labels.txt');
    expect(snapshot(repo)).toEqual(before);
  });
});

describe('mesh model add of an encoder', () => {
  it('writes what the generator writes for the demo embedding model', async () => {
    const repo = join(work, 'embedding-repo');
    const files = stripDemoModel(join(work, 'export-embed'), 'text-embed-zh', 1);
    const run = await runModelCli([
      'add',
      '--repository',
      repo,
      '--name',
      'text-embed-zh',
      '--onnx',
      files.onnx,
      '--tokenizer',
      files.tokenizer,
      '--kind',
      'embedding',
      '--max-batch-size',
      '64',
    ]);
    expect([run.code, run.stderr]).toEqual([0, '']);
    expect(run.stdout).toContain('serves:    last_hidden_state (embedding)');
    expect(run.stdout).toMatch(/-> embedding\[128\]/);
    const demo = join(DEMO, 'text-embed-zh');
    expect(withoutMemory(read(join(repo, 'text-embed-zh', 'config.pbtxt')))).toBe(
      read(join(demo, 'config.pbtxt')),
    );
    expect(read(join(repo, 'text-embed-zh', '1', 'preprocess.json'))).toBe(
      read(join(demo, '1', 'preprocess.json')),
    );
  });
});

describe('mesh model add refuses what cannot be served', () => {
  let repo: string;

  let n = 0;

  beforeEach(() => {
    // A repository that does not exist yet: model add would create it.
    repo = join(work, `refusals-${(n += 1)}`);
  });

  afterEach(() => {
    // A refusal leaves nothing behind: no model, version, staging or repository directory.
    expect(existsSync(repo)).toBe(false);
  });

  it('fixed sequence dims [1, 512] (field report A), saying how to re-export', async () => {
    const onnx = writeVariantModel(join(work, 'fixed.onnx'), {
      axes: { batch: 1, sequence: 512 },
    });
    const run = await runModelCli(addArgs(repo, 'fixed', { ...exported, onnx }));
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('refused (SIGNATURE_UNSUPPORTED)');
    expect(run.stderr).toContain(
      "input 'input_ids' has a fixed sequence length 512 (shape [1, 512]); the mesh pads each batch only to its longest text, so the sequence axis must be dynamic: re-export with dynamic axes, e.g. torch.onnx.export(..., dynamic_axes={'input_ids': {0: 'batch', 1: 'sequence'}",
    );
    expect(run.stderr).toContain("input 'attention_mask' has a fixed sequence length 512");
  });

  it('a static batch axis', async () => {
    const onnx = writeVariantModel(join(work, 'static-batch.onnx'), {
      axes: { batch: 1, sequence: 'sequence' },
    });
    const run = await runModelCli(addArgs(repo, 'static', { ...exported, onnx }));
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      "input 'input_ids' has a static batch axis 1 (shape [1, sequence]); dynamic batching needs a dynamic batch axis",
    );
    expect(run.stderr).toContain("output 'logits' has a static batch axis 1 (shape [1, 3])");
    expect(run.stderr).not.toContain('fixed sequence');
  });

  it('a label count that differs from the output', async () => {
    const labels = join(work, 'four-labels.txt');
    writeFileSync(labels, 'a\nb\nc\nd\n');
    const run = await runModelCli(addArgs(repo, 'labels', { ...exported, labels }));
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('refused (LABEL_COUNT_MISMATCH)');
    expect(run.stderr).toContain(
      "output 'logits' has 3 classes (shape [batch, 3]) but labels.txt has 4 labels",
    );
  });

  it('a tokenizer the pipeline cannot load', async () => {
    const tokenizer = join(work, 'bpe-tokenizer.json');
    writeFileSync(
      tokenizer,
      JSON.stringify({ version: '1.0', model: { type: 'BPE', vocab: {}, merges: [] } }),
    );
    const run = await runModelCli(addArgs(repo, 'tok', { ...exported, tokenizer }));
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('tok/1 failed validation; nothing was written');
    expect(run.stderr).toContain('tokenizer.json is not a usable BERT WordPiece tokenizer');
  });

  it('a model whose outputs change with padding (attention_mask not applied)', async () => {
    const onnx = writeVariantModel(join(work, 'ignores-mask.onnx'), {
      vocabSize: vocabularySize(exported.tokenizer),
      maskPenalty: 0,
    });
    const run = await runModelCli(addArgs(repo, 'nomask', { ...exported, onnx }));
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('nomask/1 failed validation; nothing was written');
    expect(run.stderr).toMatch(
      /padding changes the output: rows of a padded batch of 4 differ from single runs by \S+ \(> 0\.0001\); the model must apply attention_mask/,
    );
  });
});

describe('mesh model check', () => {
  it('refuses a memory_mb_v<N> that is not a positive number, naming the file and the parameter', async () => {
    const repo = join(work, 'bad-memory');
    cpSync(join(DEMO, 'sentiment-en'), join(repo, 'sentiment-en'), { recursive: true });
    const file = join(repo, 'sentiment-en', 'config.pbtxt');
    writeFileSync(
      file,
      `${read(file)}parameters { key: "memory_mb_v1" value: { string_value: "-5" } }\n`,
    );
    const run = await runModelCli(['check', '--repository', repo]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(
      `sentiment-en: PROBLEM: sentiment-en/config.pbtxt: parameter 'memory_mb_v1' must be a positive number of MB (got "-5")`,
    );
    expect(run.stdout).toContain('checked 1 model(s), 1 version(s): 1 problem(s)');
  });

  it('fails a repository whose manifest no longer matches the model bytes', async () => {
    const repo = join(work, 'tampered');
    cpSync(join(DEMO, 'sentiment-en'), join(repo, 'sentiment-en'), { recursive: true });
    const file = join(repo, 'sentiment-en', '1', 'preprocess.json');
    writeFileSync(
      file,
      read(file).replace(
        /"model": \{\n\s*"sha256": "[0-9a-f]+"/,
        `"model": {\n    "sha256": "${'0'.repeat(64)}"`,
      ),
    );
    const run = await runModelCli(['check', '--repository', repo]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('FAILED sentiment-en/1');
    expect(run.stdout).toContain(`but preprocess.json pins model.sha256 ${'0'.repeat(64)}`);
    expect(run.stdout).toContain('checked 1 model(s), 1 version(s): 1 problem(s)');
  });

  it('answers usage errors with exit code 2', async () => {
    const run = await runModelCli(['check']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--repository is required');
  });
});
