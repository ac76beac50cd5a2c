import { fork } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { ModelConfig } from '@mesh/model-repository';
import { ModelCliError } from './model-cli.errors';

/** A version's measured load: its footprint and the sessions it ran. */
export interface VersionFootprint {
  /** Resident MB its sessions added (whole MB, rounded up, at least 1). */
  mb: number;
  instances: number;
}

/** The model host's footprint entry: its source under a transpiler, or the built file. */
function footprintEntry(): { file: string; execArgv: string[] } {
  const root = join(__dirname, '..', '..');
  const source = join(root, 'apps', 'model-host', 'src', 'repository', 'footprint-main.ts');
  if (existsSync(source)) {
    return { file: source, execArgv: ['--require', require.resolve('tsx/cjs')] };
  }
  const built = join(root, 'dist', 'apps', 'model-host', 'src', 'repository', 'footprint-main.js');
  return { file: built, execArgv: [] };
}

type Reply = { ok: true; mb: number; instances: number } | { ok: false; message: string };

/** Forks the host's footprint entry with one request and resolves with its one reply. */
function askHost(request: object): Promise<Reply> {
  const { file, execArgv } = footprintEntry();
  return new Promise<Reply>((resolve, reject) => {
    const child = fork(file, [], { execArgv, stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
    let stderr = '';
    let reply: Reply | undefined;
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('message', (m: Reply) => (reply = m));
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      if (reply) resolve(reply);
      else
        reject(
          new Error(
            `the measuring process ended (${signal ?? `exit ${code}`}) without an answer: ${stderr.trim()}`,
          ),
        );
    });
    child.send(request);
  });
}

/**
 * The resident memory a version costs once served, measured by loading it as the model host
 * does (its own loader, in a process of its own: every instance and the lone-batch session,
 * warmed up) on this machine's cores, then closing it. Written as `memory_mb_v<N>`, it is what
 * placers add up against a backend's budget before the version was ever loaded there; a host
 * that measures more on its own cores counts the larger value.
 */
export async function measureFootprint(
  config: ModelConfig,
  modelPath: string,
  model: string,
  version: number,
): Promise<VersionFootprint> {
  const reply = await askHost({ config, modelPath, model, version }).catch((err: Error): Reply => ({
    ok: false,
    message: err.message,
  }));
  if (reply.ok) return { mb: reply.mb, instances: reply.instances };
  throw new ModelCliError(
    'VALIDATION_FAILED',
    `${model}/${version} could not be loaded as the model host loads it to measure its memory; nothing was written: ${reply.message}`,
  );
}
