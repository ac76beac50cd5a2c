import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { exportedMetricNames, referencedMetricNames } from './metric-names';

const DOC = readFileSync(join(__dirname, '..', '..', 'docs', 'observability.md'), 'utf8');

/** The text of the `### <title>` section of docs/observability.md. */
function section(title: string): string {
  const start = DOC.indexOf(`\n### ${title}\n`);
  if (start < 0) throw new Error(`docs/observability.md has no section "### ${title}"`);
  const end = DOC.indexOf('\n#', start + title.length + 6);
  return DOC.slice(start, end < 0 ? undefined : end);
}

describe('docs/observability.md', () => {
  it.each([
    ['Router', 'apps/router'],
    ['Model host', 'apps/model-host'],
    ['Batch worker', 'apps/batch-worker'],
    ['Coordinator', 'apps/coordinator'],
  ])('lists exactly the metrics the code registers, under %s', (title, dir) => {
    const exported = [...exportedMetricNames([dir])].sort();
    expect(exported.length).toBeGreaterThan(0);
    expect([...referencedMetricNames(section(title))].sort()).toEqual(exported);
  });

  it('has the sections an operator looks for', () => {
    for (const heading of ['## Logs', '## Metrics', '## Alert rules', '## Tracing'])
      expect(DOC).toContain(`\n${heading}\n`);
  });
});
