import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseModelConfig } from '@mesh/model-repository';
import { writeModelCopies } from './model-copies';

const REPO = join(__dirname, '..', '..', 'model_repository');
const SOURCE = join(REPO, 'sentiment-en');

describe('writeModelCopies', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'model-copies-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('renames each copy and declares the footprint per version', () => {
    writeModelCopies({ source: SOURCE, outDir: dir, names: ['s-01', 's-02'], memoryMb: 120 });
    for (const name of ['s-01', 's-02']) {
      const config = parseModelConfig(readFileSync(join(dir, name, 'config.pbtxt'), 'utf8'), name);
      expect(config.name).toBe(name);
      expect(config.parameters?.memory_mb_v1?.stringValue).toBe('120');
      expect(config.parameters?.model_sha256_v1?.stringValue).toMatch(/^[0-9a-f]{64}$/);
    }
  });

  it('copies only the versions asked for', () => {
    writeModelCopies({
      source: join(REPO, 'intent-zh'),
      outDir: dir,
      names: ['i-01'],
      versions: [2],
      memoryMb: 90,
    });
    expect(existsSync(join(dir, 'i-01', '2', 'model.onnx'))).toBe(true);
    expect(existsSync(join(dir, 'i-01', '1'))).toBe(false);
    const config = parseModelConfig(
      readFileSync(join(dir, 'i-01', 'config.pbtxt'), 'utf8'),
      'i-01',
    );
    expect(config.parameters?.memory_mb_v2?.stringValue).toBe('90');
    expect(config.parameters?.memory_mb_v1).toBeUndefined();
  });
});
