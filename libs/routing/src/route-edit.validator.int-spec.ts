import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RouteEditValidator } from './route-edit.validator';

const ROOT = join(__dirname, '..', '..', '..');
let repo: string;

beforeAll(() => {
  repo = mkdtempSync(join(tmpdir(), 'route-edit-'));
  cpSync(join(ROOT, 'model_repository', 'sentiment-en'), join(repo, 'sentiment-en'), {
    recursive: true,
  });
  // Version 2: same files, but the manifest pins other tokenizer bytes.
  cpSync(join(repo, 'sentiment-en', '1'), join(repo, 'sentiment-en', '2'), { recursive: true });
  const file = join(repo, 'sentiment-en', '2', 'preprocess.json');
  const manifest = JSON.parse(readFileSync(file, 'utf8'));
  manifest.tokenizer.sha256 = 'e'.repeat(64);
  writeFileSync(file, JSON.stringify(manifest));
  // Version 3: not JSON at all.
  cpSync(join(repo, 'sentiment-en', '1'), join(repo, 'sentiment-en', '3'), { recursive: true });
  writeFileSync(join(repo, 'sentiment-en', '3', 'preprocess.json'), '{ nope');
});

afterAll(() => rmSync(repo, { recursive: true, force: true }));

const route = (model: string, versions: number[], shadow?: number) => ({
  model,
  versions: versions.map((version) => ({ version, weight: 1 })),
  ...(shadow === undefined ? {} : { shadow: { version: shadow, percent: 100 } }),
});

describe('RouteEditValidator (a model repository on disk)', () => {
  it('accepts versions whose directory and manifest check out', async () => {
    expect(await new RouteEditValidator(repo).check(route('sentiment-en', [1]))).toEqual([]);
  });

  it('names an unknown model', async () => {
    expect(await new RouteEditValidator(repo).check(route('nope', [1]))).toEqual([
      {
        code: 'UNKNOWN_MODEL',
        path: 'model',
        model: 'nope',
        message: "model 'nope' is not in the model repository",
      },
    ]);
  });

  it('lists every bad version with its field path and the reason', async () => {
    const problems = await new RouteEditValidator(repo).check(route('sentiment-en', [1, 9, 2], 3));
    expect(problems.map((p) => [p.code, p.path, p.version])).toEqual([
      ['UNKNOWN_VERSION', 'versions[1].version', 9],
      ['MANIFEST_INVALID', 'versions[2].version', 2],
      ['MANIFEST_INVALID', 'shadow.version', 3],
    ]);
    expect(problems[1]!.message).toContain('tokenizer sha256 mismatch');
    expect(problems[1]!.message).toContain('e'.repeat(64));
    expect(problems[2]!.message).toContain('preprocess.json');
  });
});
