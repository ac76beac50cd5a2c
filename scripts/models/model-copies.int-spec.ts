import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseModelConfig } from '@mesh/model-repository';
import { writeModelCopies } from './model-copies';

const SOURCE = join(__dirname, '..', '..', 'model_repository', 'sentiment-en');

describe('writeModelCopies', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'model-copies-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('renames each copy and declares the footprint per version', () => {
    writeModelCopies({ source: SOURCE, outDir: dir, names: ['s-01', 's-02'], memoryMb: 120 });
    for (const name of ['s-01', 's-02']) {
      const config = parseModelConfig(readFileSync(join(dir, name, 'config.pbtxt'), 'utf8'));
      expect(config.name).toBe(name);
      expect(config.parameters?.memory_mb_v1?.stringValue).toBe('120');
      expect(config.parameters?.model_sha256_v1?.stringValue).toMatch(/^[0-9a-f]{64}$/);
    }
  });
});
