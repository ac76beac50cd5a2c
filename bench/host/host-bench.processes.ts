import { spawn, type ChildProcess } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { meshNodeFlags } from '../../scripts/lib/mesh-node-flags';

/** A throwaway repository with the same model file twice: batching on, and off. */
export function benchRepository(
  sourceModelDir: string,
  maxBatchTokens: number,
): { dir: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'host-bench-'));
  const base = readFileSync(join(sourceModelDir, 'config.pbtxt'), 'utf8')
    .replace(/parameters \{\s*key: "model_sha256[^"]*"\s*value: \{[^}]*\}\s*\}\s*/g, '')
    .replace(/version_policy: .*\n/, '')
    .concat(
      `parameters {\n  key: "max_batch_tokens"\n  value: { string_value: "${maxBatchTokens}" }\n}\n`,
    );
  const variants: Record<string, string> = {
    'host-batching': base,
    'host-no-batching': base.replace(/dynamic_batching \{[^}]*\}\s*/, ''),
  };
  for (const [name, text] of Object.entries(variants)) {
    mkdirSync(join(dir, name, '1'), { recursive: true });
    writeFileSync(
      join(dir, name, 'config.pbtxt'),
      text.replace(/^name: ".*"$/m, `name: "${name}"`),
    );
    symlinkSync(join(sourceModelDir, '1', 'model.onnx'), join(dir, name, '1', 'model.onnx'));
    if (existsSync(join(sourceModelDir, 'labels.txt'))) {
      copyFileSync(join(sourceModelDir, 'labels.txt'), join(dir, name, 'labels.txt'));
    }
  }
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Starts the built model host and resolves with its gRPC address once it listens. */
export async function startHost(
  root: string,
  repository: string,
  env: Record<string, string>,
): Promise<{ proc: ChildProcess; grpc: string; stop(): Promise<void> }> {
  const main = join(root, 'dist', 'apps', 'model-host', 'src', 'main.js');
  if (!existsSync(main)) throw new Error(`${main} is missing: run \`npm run build\` first`);
  const proc = spawn(process.execPath, [...meshNodeFlags(root), main], {
    cwd: root,
    env: {
      ...process.env,
      ...env,
      MODEL_REPOSITORY: repository,
      MODEL_HOST_HTTP_PORT: '0',
      MODEL_HOST_GRPC_PORT: '0',
      MODEL_HOST_METRICS_PORT: '0',
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const grpc = await new Promise<string>((resolve, reject) => {
    let buf = '';
    const timer = setTimeout(
      () => reject(new Error(`host did not start:\n${buf.slice(-2000)}`)),
      120_000,
    );
    proc.on('exit', (code) => reject(new Error(`host exited with ${code}:\n${buf.slice(-2000)}`)));
    proc.stderr?.on('data', (d: Buffer) => (buf += d.toString()));
    proc.stdout?.on('data', (d: Buffer) => {
      buf += d.toString();
      const m = /"listener":"grpc","url":"grpc:\/\/([^"]+)"/.exec(buf);
      if (m?.[1]) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
  });
  const stop = () =>
    new Promise<void>((resolve) => {
      proc.once('exit', () => resolve());
      proc.kill('SIGTERM');
    });
  return { proc, grpc, stop };
}
