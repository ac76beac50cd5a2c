import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');
const SCRIPT = join(ROOT, 'deploy', 'scripts', 'publish-models.sh');
const MODEL = 'intent-zh';

let work: string;
let src: string;
let dst: string;

/** A copy of one generated model (config, labels, version manifests; no model.onnx needed). */
beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), 'publish-'));
  src = join(work, 'src');
  dst = join(work, 'dst');
  cpSync(join(ROOT, 'model_repository', MODEL), join(src, MODEL), {
    recursive: true,
    filter: (p) => !p.endsWith('.onnx'),
  });
});
afterEach(() => rmSync(work, { recursive: true, force: true }));

const publish = (...extra: string[]) =>
  spawnSync('sh', [SCRIPT, src, dst, ...extra], { encoding: 'utf8' });

describe('deploy/scripts/publish-models.sh', () => {
  it('publishes every version and the model files, rewriting the instance kind for GPUs', () => {
    const run = publish('KIND_GPU');
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    for (const v of ['1', '2', '3'])
      expect(existsSync(join(dst, MODEL, v, 'preprocess.json'))).toBe(true);
    const config = readFileSync(join(dst, MODEL, 'config.pbtxt'), 'utf8');
    expect(config).toMatch(/kind: KIND_GPU/);
    expect(config).not.toMatch(/KIND_CPU/);
    expect(readFileSync(join(dst, MODEL, 'labels.txt'), 'utf8')).toBe(
      readFileSync(join(src, MODEL, 'labels.txt'), 'utf8'),
    );
  });

  it('never overwrites a published version, but updates config.pbtxt and adds new versions', () => {
    expect(publish().status).toBe(0);
    const manifest = join(MODEL, '2', 'preprocess.json');
    writeFileSync(join(src, manifest), '{"changed": true}');
    cpSync(join(src, MODEL, '3'), join(src, MODEL, '4'), { recursive: true });
    writeFileSync(join(src, MODEL, 'config.pbtxt'), '# v4 added\n', { flag: 'a' });
    const again = publish();
    expect(again.status).toBe(0);
    expect(again.stdout).toContain(`${MODEL}/2 already published, kept`);
    expect(again.stdout).toContain(`${MODEL}/4 published`);
    expect(readFileSync(join(dst, manifest), 'utf8')).not.toContain('changed');
    expect(existsSync(join(dst, MODEL, '4', 'tokenizer.json'))).toBe(true);
    expect(readFileSync(join(dst, MODEL, 'config.pbtxt'), 'utf8')).toMatch(/# v4 added\n$/);
  });

  it('rejects an unknown instance kind and an empty source, saying why', () => {
    const kind = publish('KIND_TPU');
    expect(kind.status).toBe(2);
    expect(kind.stderr).toMatch(/INSTANCE_KIND must be KIND_CPU, KIND_GPU or KIND_AUTO/);
    rmSync(join(src, MODEL), { recursive: true });
    const empty = publish();
    expect(empty.status).toBe(1);
    expect(empty.stderr).toMatch(/no model \(a directory with config.pbtxt\)/);
  });
});
