import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { parseRolloutPlan } from './rollout-plan.schema';

/** The example plans under deploy/examples, as `npm run mesh -- rollout create -f` reads them. */
const EXAMPLES = join(__dirname, '..', '..', '..', '..', 'deploy', 'examples');
const plans = readdirSync(EXAMPLES).filter((f) => /^rollout-.*\.ya?ml$/.test(f));

describe('example rollout plans', () => {
  it('has at least one', () => {
    expect(plans.length).toBeGreaterThan(0);
  });

  it.each(plans)('%s passes the plan schema as written', (file) => {
    const written = parseYaml(readFileSync(join(EXAMPLES, file), 'utf8')) as Record<
      string,
      unknown
    >;
    const plan = parseRolloutPlan(written);
    // Every field the example writes is kept as written: none is unknown or coerced.
    expect(plan).toMatchObject(written);
  });
});
