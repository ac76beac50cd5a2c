import { UsageError } from '../cli-args';
import { parseRenderArgs } from './render-manifests';

describe('deploy:render arguments', () => {
  it('takes the one kustomization directory', () => {
    expect(parseRenderArgs(['deploy/k8s/overlays/cpu'])).toBe('deploy/k8s/overlays/cpu');
  });

  const refused: [string[], string][] = [
    [[], 'a kustomization directory is required'],
    [
      ['deploy/k8s/overlays/cpu', 'deploy/k8s/overlays/gpu'],
      "Unexpected argument 'deploy/k8s/overlays/gpu'",
    ],
    [['deploy/k8s/overlays/cpu', '--validate'], "Unknown option '--validate'"],
  ];
  it.each(refused)('refuses %j naming the problem', (args, why) => {
    expect(() => parseRenderArgs(args)).toThrow(new UsageError(why));
  });
});
