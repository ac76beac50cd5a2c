import { stringify } from 'yaml';
import { USAGE_EXIT_CODE, UsageError, parseCliArgs } from '../cli-args';
import { KustomizeRenderer } from './kustomize.renderer';
import { crossCheck } from './manifest.cross-checks';
import { validateObjects } from './manifest.validator';

/**
 * `npm run deploy:render -- deploy/k8s/overlays/gpu` prints the overlay's manifests (for
 * `kubectl apply -f -`) after validating them; problems go to stderr and exit 1.
 */
export const RENDER_USAGE = 'usage: npm run deploy:render -- <kustomization dir>';

/** The one kustomization directory the command takes; a UsageError otherwise. */
export function parseRenderArgs(argv: string[]): string {
  const [dir, ...extra] = parseCliArgs({ args: argv, allowPositionals: true }).positionals;
  if (!dir) throw new UsageError('a kustomization directory is required');
  if (extra.length > 0) throw new UsageError(`Unexpected argument '${extra[0]}'`);
  return dir;
}

function main(): void {
  let dir: string;
  try {
    dir = parseRenderArgs(process.argv.slice(2));
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    process.stderr.write(`${err.message}\n${RENDER_USAGE}\n`);
    process.exit(USAGE_EXIT_CODE);
  }
  const objects = new KustomizeRenderer().render(dir);
  const problems = [
    ...validateObjects(objects).map((p) => `schema: ${p.object}: ${p.message}`),
    ...crossCheck(objects).map((p) => `${p.check}: ${p.object}: ${p.message}`),
  ];
  if (problems.length > 0) {
    process.stderr.write(`${dir}: ${problems.length} problem(s)\n  ${problems.join('\n  ')}\n`);
    process.exit(1);
  }
  process.stdout.write(objects.map((o) => stringify(o, { lineWidth: 0 })).join('---\n'));
}

if (require.main === module) main();
