import { stringify } from 'yaml';
import { KustomizeRenderer } from './kustomize.renderer';
import { crossCheck } from './manifest.cross-checks';
import { validateObjects } from './manifest.validator';

/**
 * `npm run deploy:render -- deploy/k8s/overlays/gpu` prints the overlay's manifests (for
 * `kubectl apply -f -`) after validating them; problems go to stderr and exit 1.
 */
function main(): void {
  const dir = process.argv[2];
  if (!dir) {
    process.stderr.write('usage: npm run deploy:render -- <kustomization dir>\n');
    process.exit(2);
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

main();
