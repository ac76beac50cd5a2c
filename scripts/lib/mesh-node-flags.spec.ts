import { mkdtempSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MESH_NODE_FLAGS_FILE, meshNodeFlags } from './mesh-node-flags';

const ROOT = join(__dirname, '..', '..');
const FLAGS = meshNodeFlags(ROOT);

/** Each `node … dist/apps/<app>/src/main.js` command line in `text`, as its words. */
function appCommands(text: string): string[][] {
  return [...text.matchAll(/node\b[^\n]*?dist\/apps\/[a-z-]+\/src\/main\.js/g)].map((m) =>
    m[0].split(/[\s,"[\]]+/).filter((w) => w !== ''),
  );
}

/** The words between `node` and the app's main file. */
function flagsOf(command: string[]): string[] {
  return command.slice(
    1,
    command.findIndex((w) => w.includes('dist/apps/')),
  );
}

describe('the mesh apps’ node flags', () => {
  it('are listed once, for every launcher to read', () => {
    expect(FLAGS).toEqual(['--interrupt-budget=16384']);
  });

  it.each([
    ['package.json (start:*)', 'package.json', 4],
    ['the image', 'deploy/Dockerfile', 1],
    ['the model host README', 'apps/model-host/README.md', 1],
  ])('are on every app command line of %s', (_what, file, count) => {
    const commands = appCommands(readFileSync(join(ROOT, file), 'utf8'));
    expect(commands).toHaveLength(count);
    for (const command of commands) expect(flagsOf(command)).toEqual(FLAGS);
  });

  it('are on every mesh container of the Kubernetes manifests', () => {
    const dir = join(ROOT, 'deploy', 'k8s', 'base');
    const commands = readdirSync(dir)
      .filter((f) => f.endsWith('.yaml'))
      .flatMap((f) => appCommands(readFileSync(join(dir, f), 'utf8')));
    // router, batch worker and coordinator (the cluster's model host is Triton)
    expect(commands).toHaveLength(3);
    for (const command of commands) expect(flagsOf(command)).toEqual(FLAGS);
  });

  describe('meshNodeFlags', () => {
    let root: string;
    beforeEach(() => {
      root = mkdtempSync(join(tmpdir(), 'mesh-node-flags-'));
    });
    afterEach(() => rmSync(root, { recursive: true, force: true }));

    it('gives none for a checkout from before the list existed', () => {
      expect(meshNodeFlags(root)).toEqual([]);
    });

    it('rejects a list that is not node flags, naming the file', () => {
      mkdirSync(join(root, 'scripts', 'lib'), { recursive: true });
      writeFileSync(join(root, MESH_NODE_FLAGS_FILE), JSON.stringify(['interrupt-budget=16384']));
      expect(() => meshNodeFlags(root)).toThrow(/mesh-node-flags\.json: expected a JSON array/);
    });
  });
});
