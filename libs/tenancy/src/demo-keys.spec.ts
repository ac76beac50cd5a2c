import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readMeshConfigFile } from '@mesh/routing';
import { sha256Hex } from './api-key';

const SEED = join(__dirname, '../../../deploy/config/mesh.yaml');

describe('mesh.yaml demo keys', () => {
  it('documents plaintext demo keys whose sha256 is what the file stores', async () => {
    const text = readFileSync(SEED, 'utf8');
    const documented = [...text.matchAll(/^#\s+(\w+)\s+(\S+-demo-key)\s+([0-9a-f]{64})$/gm)];
    expect(documented.map((m) => m[1])).toEqual(['acme', 'globex']);
    const data = await readMeshConfigFile(SEED);
    for (const [, tenant, key, hash] of documented) {
      expect(sha256Hex(key!)).toBe(hash);
      expect(data.tenants.find((t) => t.name === tenant)?.keySha256).toEqual([hash]);
    }
    expect(text).not.toMatch(/^[^#]*-demo-key/m);
  });
});
