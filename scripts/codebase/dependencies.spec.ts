import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Every runtime dependency in package.json is imported by the code that ships (apps, libs,
 * scripts, the UI), so nothing is installed, audited and upgraded for no reason. Specs do not
 * count: a package only a test imports belongs in devDependencies.
 */

const ROOT = join(__dirname, '..', '..');
const SOURCE_DIRS = ['apps', 'libs', 'scripts', 'ui'];
const SOURCE_FILE = /\.(ts|tsx|js|mjs|cjs)$/;
const TEST_FILE = /\.(spec|int-spec|e2e-spec)\.ts$/;

/** Runtime dependencies no source file imports because a framework loads them by name. */
const FRAMEWORK_LOADED: Readonly<Record<string, string>> = {
  '@fastify/static':
    "required by @nestjs/platform-fastify's useStaticAssets, which SwaggerModule.setup calls to serve the /docs UI assets",
};

/** `from 'x'`, `import 'x'`, `import('x')`, `require('x')` and `export … from 'x'`. */
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*|\bimport\s+)['"]([^'"\s]+)['"]/g;

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === 'dist') continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sourceFiles(path));
    else if (SOURCE_FILE.test(entry.name) && !TEST_FILE.test(entry.name)) out.push(path);
  }
  return out;
}

/** The package a bare specifier names ('@scope/name/sub' → '@scope/name', 'name/sub' → 'name'). */
function packageOf(specifier: string): string | undefined {
  if (specifier.startsWith('.') || specifier.startsWith('/') || specifier.startsWith('node:'))
    return undefined;
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

function importedPackages(text: string): Set<string> {
  const names = new Set<string>();
  for (const match of text.matchAll(SPECIFIER)) {
    const name = packageOf(match[1]!);
    if (name) names.add(name);
  }
  return names;
}

describe('runtime dependencies', () => {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
  };
  const runtime = Object.keys(pkg.dependencies);
  const imported = new Set<string>();
  for (const dir of SOURCE_DIRS)
    for (const file of sourceFiles(join(ROOT, dir)))
      for (const name of importedPackages(readFileSync(file, 'utf8'))) imported.add(name);

  it('are each imported by apps/, libs/, scripts/ or ui/, or loaded by a framework', () => {
    const unused = runtime.filter((name) => !imported.has(name) && !(name in FRAMEWORK_LOADED));
    expect(unused).toEqual([]);
  });

  it('allow-lists only installed packages that nothing imports', () => {
    for (const name of Object.keys(FRAMEWORK_LOADED)) {
      expect({ name, runtime: runtime.includes(name) }).toEqual({ name, runtime: true });
      expect({ name, imported: imported.has(name) }).toEqual({ name, imported: false });
    }
  });

  it('reads every form of import', () => {
    const text = [
      "import { a } from '@scope/one/sub';",
      "import 'side-effect';",
      "const b = require('two/lib/x');",
      "const c = await import('three');",
      "export * from 'four';",
      "import { d } from './local';",
      "import { e } from 'node:fs';",
    ].join('\n');
    expect([...importedPackages(text)].sort()).toEqual([
      '@scope/one',
      'four',
      'side-effect',
      'three',
      'two',
    ]);
  });
});
