import { readFile, readdir } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { parseModelConfigDetailed } from './model-config.parser';
import { ModelRepositoryReader } from './model-repository-reader';
import { readPreprocessManifest } from './preprocess-manifest-reader';
import { parsePreprocessManifest } from './preprocess-manifest.schema';
import { sha256File } from './sha256-file';

const REPO = join(__dirname, '../../..');
const MODEL_REPOSITORY = join(REPO, 'model_repository');
const SKIP = new Set(['node_modules', 'dist', 'coverage']);

/** Every `*.pbtxt` and `preprocess.json` in the working tree (hidden and build dirs skipped). */
async function projectFiles(dir: string, found: string[] = []): Promise<string[]> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (entry.name.startsWith('.') || SKIP.has(entry.name)) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) await projectFiles(path, found);
    else if (entry.name.endsWith('.pbtxt') || entry.name === 'preprocess.json') found.push(path);
  }
  return found;
}

describe('committed configs and manifests', () => {
  let files: string[] = [];

  beforeAll(async () => {
    files = (await projectFiles(REPO)).sort();
  });

  it('finds the demo repository and the seed fixtures', () => {
    const names = files.map((f) => relative(REPO, f));
    expect(names).toEqual(
      expect.arrayContaining([
        'libs/model-repository/src/testing/report-a.config.pbtxt',
        'libs/model-repository/src/testing/report-c.config.pbtxt',
        'model_repository/question-type-zh/config.pbtxt',
        'model_repository/question-type-zh/2/preprocess.json',
      ]),
    );
  });

  it('parses every config.pbtxt and preprocess.json in the project', async () => {
    const problems: string[] = [];
    for (const file of files) {
      const label = relative(REPO, file);
      const text = await readFile(file, 'utf8');
      try {
        if (file.endsWith('.pbtxt')) parseModelConfigDetailed(text, label);
        else parsePreprocessManifest(JSON.parse(text), label);
      } catch (error: unknown) {
        problems.push(error instanceof Error ? error.message : String(error));
      }
    }
    expect(problems).toEqual([]);
  });
});

describe('the demo model repository', () => {
  const demoModels = ['intent-zh', 'question-type-zh', 'sentiment-en', 'text-embed-zh'];

  it('holds the pinned demo models, each servable, with no ignored fields', async () => {
    const entries = await new ModelRepositoryReader(MODEL_REPOSITORY).readAll();
    expect(entries.map((e) => e.name)).toEqual(expect.arrayContaining(demoModels));
    for (const entry of entries) {
      expect({ model: entry.name, error: entry.error, warnings: entry.warnings }).toEqual({
        model: entry.name,
        error: undefined,
        warnings: [],
      });
      expect(entry.versionsSelected.length).toBeGreaterThan(0);
    }
  });

  it('keeps every manifest consistent with its config, labels and tokenizer', async () => {
    const entries = await new ModelRepositoryReader(MODEL_REPOSITORY).readAll();
    const problems: string[] = [];
    for (const entry of entries) {
      const config = entry.config;
      if (!config) continue;
      for (const version of entry.versionsOnDisk) {
        const dir = join(entry.dir, String(version));
        const where = `${entry.name}/${version}`;
        const manifest = await readPreprocessManifest(dir);
        const inputs = config.input.map((i) => i.name);
        for (const name of Object.values(manifest.inputs)) {
          if (!inputs.includes(name))
            problems.push(`${where}: input '${name}' not in config.pbtxt`);
        }
        const output = config.output.find((o) => o.name === manifest.postprocess.output);
        if (!output)
          problems.push(`${where}: output '${manifest.postprocess.output}' not in config`);
        if (manifest.postprocess.kind === 'classification' && output) {
          const labels = entry.labels?.[output.name];
          if (labels?.length !== output.dims[output.dims.length - 1]) {
            problems.push(
              `${where}: ${labels?.length} labels for output dims ${output.dims.join('x')}`,
            );
          }
        }
        const pinned = config.parameters[`model_sha256_v${version}`]?.stringValue;
        if (pinned !== manifest.model.sha256) {
          problems.push(
            `${where}: config model_sha256_v${version} ${pinned} != manifest ${manifest.model.sha256}`,
          );
        }
        const tokenizer = await sha256File(join(dir, manifest.tokenizer.file));
        if (tokenizer !== manifest.tokenizer.sha256)
          problems.push(`${where}: tokenizer sha256 differs`);
      }
    }
    expect(problems).toEqual([]);
  });
});
