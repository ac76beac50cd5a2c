import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RouteEditValidator } from './route-edit.check';

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

describe('RouteEditValidator: footprints against backend budgets', () => {
  let sized: string;

  beforeAll(() => {
    // Version 1 declares 900 MB; version 4 (a copy) declares 100 MB.
    sized = mkdtempSync(join(tmpdir(), 'route-edit-sized-'));
    const dir = join(sized, 'sentiment-en');
    cpSync(join(ROOT, 'model_repository', 'sentiment-en'), dir, { recursive: true });
    cpSync(join(dir, '1'), join(dir, '4'), { recursive: true });
    const config = join(dir, 'config.pbtxt');
    const policy = 'version_policy: { specific: { versions: [1, 4] } }\n';
    writeFileSync(
      config,
      readFileSync(config, 'utf8').replace(/version_policy[^\n]*\n/, '') +
        policy +
        'parameters { key: "memory_mb_v1" value: { string_value: "900" } }\n' +
        'parameters { key: "memory_mb_v4" value: { string_value: "100" } }\n',
    );
  });

  afterAll(() => rmSync(sized, { recursive: true, force: true }));

  const weighted = (versions: [number, number][]) => ({
    model: 'sentiment-en',
    versions: versions.map(([version, weight]) => ({ version, weight })),
  });

  it('refuses a weighted version larger than every budget, naming footprint and budget', async () => {
    let asked = 0;
    const validator = new RouteEditValidator(sized, {
      largestBudgetMb: async () => {
        asked += 1;
        return 512;
      },
    });
    const problems = await validator.check(
      weighted([
        [4, 90],
        [1, 10],
      ]),
    );
    expect(problems).toEqual([
      {
        code: 'MODEL_TOO_LARGE',
        path: 'versions[1].weight',
        model: 'sentiment-en',
        version: 1,
        message:
          "version 1 of model 'sentiment-en' needs 900 MB (memory_mb_v1), more than the largest backend budget (512 MB)",
      },
    ]);
    expect(asked).toBe(1);
  });

  it('lets a version through at weight 0, when it fits, or while budgets are unknown', async () => {
    const budget = (mb: number | null) =>
      new RouteEditValidator(sized, { largestBudgetMb: async () => mb });
    expect(
      await budget(512).check(
        weighted([
          [4, 1],
          [1, 0],
        ]),
      ),
    ).toEqual([]);
    expect(await budget(1024).check(weighted([[1, 1]]))).toEqual([]);
    expect(await budget(null).check(weighted([[1, 1]]))).toEqual([]);
    expect(await new RouteEditValidator(sized).check(weighted([[1, 1]]))).toEqual([]);
  });
});
