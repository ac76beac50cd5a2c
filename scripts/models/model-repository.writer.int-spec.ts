import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { DEMO_MODELS } from './demo-catalog';
import { MODEL_FILE, ModelRepositoryWriter } from './model-repository.writer';
import { sha256Hex } from './repository-files';
import { readWordListFile } from './word-list';

const ROOT = join(__dirname, '..', '..');
const COMMITTED = join(ROOT, 'model_repository');
const vocab = readWordListFile();

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [relative(COMMITTED, path)];
  });
}

describe('committed model_repository', () => {
  it('is byte for byte what the generator writes (the --check contract)', () => {
    const rendered = new ModelRepositoryWriter({
      outDir: COMMITTED,
      size: 'tiny',
      vocab,
    }).renderInMemory();
    const committed = filesUnder(COMMITTED)
      .filter((p) => !p.endsWith(MODEL_FILE))
      .sort();
    expect(committed).toEqual([...rendered.keys()].sort());
    const changed = [...rendered].filter(
      ([path, text]) => readFileSync(join(COMMITTED, path), 'utf8') !== text,
    );
    expect(changed.map(([path]) => path)).toEqual([]);
  });
});

describe('ModelRepositoryWriter on a scratch directory', () => {
  const sentiment = DEMO_MODELS.filter((m) => m.name === 'sentiment-en');
  let outDir: string;
  let writer: ModelRepositoryWriter;

  beforeEach(() => {
    outDir = mkdtempSync(join(tmpdir(), 'mesh-models-'));
    writer = new ModelRepositoryWriter({ outDir, size: 'tiny', vocab, models: sentiment });
  });

  afterEach(() => {
    rmSync(outDir, { recursive: true, force: true });
  });

  it('writes the model, pins its sha256 in config and manifest, then keeps it on the next run', async () => {
    const first = await writer.generate(false);
    expect(first.modelsGenerated.map((m) => m.path)).toEqual(['sentiment-en/1/model.onnx']);
    expect(first.filesWritten.sort()).toEqual([
      'sentiment-en/1/preprocess.json',
      'sentiment-en/1/tokenizer.json',
      'sentiment-en/config.pbtxt',
      'sentiment-en/labels.txt',
    ]);
    const sha = sha256Hex(readFileSync(join(outDir, 'sentiment-en/1/model.onnx')));
    const manifest = JSON.parse(
      readFileSync(join(outDir, 'sentiment-en/1/preprocess.json'), 'utf8'),
    );
    expect(manifest.model.sha256).toBe(sha);
    expect(readFileSync(join(outDir, 'sentiment-en/config.pbtxt'), 'utf8')).toContain(
      `key: "model_sha256_v1"\n  value: { string_value: "${sha}" }`,
    );
    const second = await writer.generate(false);
    expect(second.modelsKept).toEqual(['sentiment-en/1/model.onnx']);
    expect(second.filesWritten).toEqual([]);
    expect(await writer.check()).toEqual([]);
  });

  it('regenerates a model.onnx that does not match its manifest, and --force rebuilds identical bytes', async () => {
    await writer.generate(false);
    const modelPath = join(outDir, 'sentiment-en/1/model.onnx');
    const original = readFileSync(modelPath);
    writeFileSync(modelPath, 'truncated');
    expect(await writer.check()).toEqual(['sentiment-en/1/model.onnx']);
    const repaired = await writer.generate(false);
    expect(repaired.modelsGenerated).toHaveLength(1);
    expect(readFileSync(modelPath).equals(original)).toBe(true);
    const forced = await writer.generate(true);
    expect(forced.modelsGenerated).toHaveLength(1);
    expect(forced.filesWritten).toEqual([]);
    expect(readFileSync(modelPath).equals(original)).toBe(true);
  });

  it('check lists edited and missing files without writing anything', async () => {
    await writer.generate(false);
    writeFileSync(join(outDir, 'sentiment-en/labels.txt'), 'bad\ngood\n');
    rmSync(join(outDir, 'sentiment-en/1/tokenizer.json'));
    expect((await writer.check()).sort()).toEqual([
      'sentiment-en/1/tokenizer.json',
      'sentiment-en/labels.txt',
    ]);
    expect(existsSync(join(outDir, 'sentiment-en/1/tokenizer.json'))).toBe(false);
  });
});

describe('npm run models CLI', () => {
  const cli = (...args: string[]) =>
    spawnSync(
      process.execPath,
      [join(ROOT, 'scripts/run-ts.js'), join(ROOT, 'scripts/generate-models.ts'), ...args],
      {
        cwd: ROOT,
        encoding: 'utf8',
      },
    );

  it('--check exits 0 on the committed repository and 1 naming each file that would change', () => {
    const ok = cli('--check');
    expect(ok.stderr).toBe('');
    expect(ok.status).toBe(0);
    const outDir = mkdtempSync(join(tmpdir(), 'mesh-models-cli-'));
    try {
      const bad = cli('--check', '--out', outDir);
      expect(bad.status).toBe(1);
      expect(bad.stderr).toContain('  sentiment-en/config.pbtxt\n');
      expect(bad.stderr).toContain('  text-embed-zh/1/preprocess.json\n');
      expect(readdirSync(outDir)).toEqual([]);
    } finally {
      rmSync(outDir, { recursive: true, force: true });
    }
  });

  it('rejects an unknown size with a usage message', () => {
    const result = cli('--size', 'huge');
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('--size must be tiny or small, got "huge"');
  });
});
