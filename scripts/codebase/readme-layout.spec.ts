import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');

/** The names the README's Layout block gives a line of its own (`apps/`, `  router/`, …). */
export function layoutEntries(readme: string): Set<string> {
  const block = /^## Layout\n+```\n([\s\S]*?)\n```/m.exec(readme)?.[1];
  if (block === undefined) throw new Error('README.md has no Layout block');
  return new Set(
    block.split('\n').flatMap((line) => {
      const name = /^\s*([\w.-]+)\/\s/.exec(line)?.[1];
      return name === undefined ? [] : [name];
    }),
  );
}

/** Folders at the top of the tracked tree and one level into `libs/` and `apps/`. */
function trackedFolders(): { top: string[]; libs: string[]; apps: string[] } {
  const files = execFileSync('git', ['ls-files'], { cwd: ROOT }).toString().split('\n');
  const under = (prefix: string) => [
    ...new Set(
      files
        .filter((f) => f.startsWith(prefix) && f.slice(prefix.length).includes('/'))
        .map((f) => f.slice(prefix.length).split('/')[0]!),
    ),
  ];
  return { top: under(''), libs: under('libs/'), apps: under('apps/') };
}

describe('README layout', () => {
  const entries = layoutEntries(readFileSync(join(ROOT, 'README.md'), 'utf8'));

  it('gives every top-level folder, app and lib a line', () => {
    const { top, libs, apps } = trackedFolders();
    const missing = [...top, ...libs, ...apps].filter((name) => !entries.has(name));
    expect(missing).toEqual([]);
  });

  it('reads indented entries and refuses a README without the block', () => {
    const readme = '## Layout\n\n```\napps/   x\n  router/  y\nnot a folder\n```\n';
    expect(layoutEntries(readme)).toEqual(new Set(['apps', 'router']));
    expect(() => layoutEntries('# nothing')).toThrow('Layout');
  });
});
