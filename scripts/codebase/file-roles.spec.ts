import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';

const ROOT = join(__dirname, '..', '..');
const TEST_ROLES = ['e2e-spec', 'int-spec', 'spec'];

/** The roles CONTRIBUTING.md lists under "A new file: its role"; `(none)` is a plain module. */
export function listedRoles(contributing: string): Set<string> {
  const section = contributing.split(/^### A new file: its role$/m)[1]?.split(/^#{2,3} /m)[0];
  if (section === undefined)
    throw new Error('CONTRIBUTING.md has no "A new file: its role" section');
  const roles = [...section.matchAll(/^\| (`([a-z0-9-]+)`|\(none\)) +\|/gm)].map((m) => m[2] ?? '');
  return new Set(roles);
}

/** `a-b.c.spec.ts` → `c` and `spec`; `index.ts` → '' (a plain module). */
export function roleOf(file: string): { role: string; test: string } {
  let rest = basename(file).replace(/\.tsx?$/, '');
  let test = '';
  for (const t of TEST_ROLES) {
    if (rest.endsWith(`.${t}`)) {
      test = t;
      rest = rest.slice(0, -(t.length + 1));
      break;
    }
  }
  const parts = rest.split('.');
  return { role: parts.length > 1 ? parts[parts.length - 1]! : '', test };
}

function trackedSources(): string[] {
  return execFileSync('git', ['ls-files', 'apps', 'libs', 'ui', 'test'], { cwd: ROOT })
    .toString()
    .split('\n')
    .filter((f) => /\.tsx?$/.test(f) && !f.endsWith('.d.ts'));
}

describe('file roles', () => {
  const roles = listedRoles(readFileSync(join(ROOT, 'CONTRIBUTING.md'), 'utf8'));

  it('lists at most 20 roles, plain modules and the three kinds of test included', () => {
    expect(roles.size).toBeGreaterThan(0);
    expect(roles.size).toBeLessThanOrEqual(20);
    for (const r of ['', ...TEST_ROLES]) expect(roles).toContain(r);
  });

  it('gives every file under apps, libs, ui and test a listed role', () => {
    const off = trackedSources().filter((f) => {
      const { role, test } = roleOf(f);
      return !roles.has(role) || (test !== '' && !roles.has(test));
    });
    expect(off).toEqual([]);
  });

  it('reads a role and a test kind from a name', () => {
    expect(roleOf('apps/x/src/a-b.c.int-spec.ts')).toEqual({ role: 'c', test: 'int-spec' });
    expect(roleOf('libs/y/src/index.ts')).toEqual({ role: '', test: '' });
    expect(roleOf('test/z.e2e-spec.ts')).toEqual({ role: '', test: 'e2e-spec' });
  });

  it('finds the table and refuses a CONTRIBUTING.md without it', () => {
    const doc =
      '### A new file: its role\n\n| role | holds |\n|---|---|\n| (none) | x |\n| `keys` | y |\n\n## Next\n| `other` | z |\n';
    expect(listedRoles(doc)).toEqual(new Set(['', 'keys']));
    expect(() => listedRoles('# nothing')).toThrow('A new file: its role');
  });
});
