import { join } from 'node:path';
import { parseMeshConfig, readMeshConfigFile } from './mesh-config.parser';
import { RouteResolver } from './route-resolver';
import { RoutingValidationError } from './routing.errors';

const SEED = join(__dirname, '../../../deploy/config/mesh.yaml');

describe('mesh.yaml', () => {
  it('the committed seed file is valid and routes every demo task', async () => {
    const data = await readMeshConfigFile(SEED);
    const resolver = new RouteResolver({ epoch: 1, ...data });
    const defaults = new Map(data.routes.filter((r) => r.tenant === '*').map((r) => [r.task, r]));
    expect(defaults.get('question-type')?.model).toBe('question-type-zh');
    expect(defaults.get('question-type')?.versions.map((v) => v.version)).toEqual([1, 2]);
    expect(defaults.get('intent')?.versions).toEqual([{ version: 3, weight: 100 }]);
    expect(defaults.get('sentiment')?.model).toBe('sentiment-en');
    expect(defaults.get('embed')?.model).toBe('text-embed-zh');
    expect(resolver.resolve('acme', 'intent').route.versions).toEqual([
      { version: 2, weight: 100 },
    ]);
    expect(() => resolver.resolve('globex', 'intent')).toThrow(
      expect.objectContaining({ code: 'TASK_NOT_FOUND' }),
    );
  });

  it('reports YAML syntax errors and duplicate keys with the file name', () => {
    expect(() => parseMeshConfig('tenants: [\n', 'broken.yaml')).toThrow(RoutingValidationError);
    expect(() => parseMeshConfig('tenants: []\ntenants: []\nroutes: []\n', 'dup.yaml')).toThrow(
      /^dup\.yaml: 1 problem/,
    );
  });

  it('reports schema problems with their path in the file', () => {
    const text =
      'tenants: []\nroutes:\n  - { tenant: "*", task: t, model: m, versions: [{ version: 1, weight: -2 }] }\n';
    expect(() => parseMeshConfig(text, 'x.yaml')).toThrow(
      'routes[0].versions[0].weight: must be ≥ 0',
    );
  });
});
