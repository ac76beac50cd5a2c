/**
 * Reads Prometheus text exposition (what `/metrics` answers) for specs, e2e suites and benches:
 * the one parser they share, so a label value with a space, a comma or a quote, or a `+Inf`
 * value, reads the same everywhere. Comments (`# HELP`, `# TYPE`) and blank lines are skipped.
 */

/** One sample line: `name{label="value",…} value [timestamp]`. */
export interface PrometheusSample {
  name: string;
  /** The labels in the order the line lists them. */
  labels: Record<string, string>;
  value: number;
}

/** Labels a sample must carry (each with exactly this value); other labels may be present. */
export type LabelFilter = Readonly<Record<string, string>>;

const NAME = /^[A-Za-z_:][A-Za-z0-9_:]*/;
const LABEL_NAME = /^[A-Za-z_][A-Za-z0-9_]*/;
const ESCAPES: Record<string, string> = { n: '\n', '\\': '\\', '"': '"' };

/** Every sample of the exposition, in order. Throws on a line that is not one, naming it. */
export function parsePrometheusText(text: string): PrometheusSample[] {
  const samples: PrometheusSample[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    samples.push(parseSampleLine(line));
  }
  return samples;
}

/** One sample line (no comment). Throws naming the line when it is not `name{…} value`. */
export function parseSampleLine(line: string): PrometheusSample {
  const bad = (why: string) => new Error(`not a Prometheus sample line (${why}): ${line}`);
  const name = NAME.exec(line)?.[0];
  if (!name) throw bad('no metric name');
  let i = name.length;
  const labels: Record<string, string> = {};
  if (line[i] === '{') {
    i += 1;
    for (;;) {
      while (line[i] === ' ' || line[i] === ',') i += 1;
      if (line[i] === '}') break;
      const label = LABEL_NAME.exec(line.slice(i))?.[0];
      if (!label || line[i + label.length] !== '=' || line[i + label.length + 1] !== '"') {
        throw bad(`label expected at column ${i + 1}`);
      }
      i += label.length + 2;
      let value = '';
      while (i < line.length && line[i] !== '"') {
        if (line[i] === '\\') {
          const next = line[i + 1] ?? '';
          value += ESCAPES[next] ?? `\\${next}`;
          i += 2;
        } else {
          value += line[i];
          i += 1;
        }
      }
      if (i >= line.length) throw bad(`unterminated value of label ${label}`);
      labels[label] = value;
      i += 1;
    }
    i += 1;
  }
  const [valueText, timestamp, ...extra] = line.slice(i).trim().split(/\s+/);
  if (!valueText || extra.length > 0 || (timestamp !== undefined && !/^-?\d+$/.test(timestamp))) {
    throw bad('expected a value and an optional timestamp after the labels');
  }
  const value = sampleValue(valueText);
  if (value === undefined) throw bad(`value ${valueText}`);
  return { name, labels, value };
}

/** A sample value; NaN and ±Inf in any case, as Prometheus reads them (prom-client writes `Nan`). */
function sampleValue(text: string): number | undefined {
  const word = text.toLowerCase();
  if (word === '+inf' || word === 'inf') return Infinity;
  if (word === '-inf') return -Infinity;
  if (word === 'nan') return NaN;
  const value = Number(text);
  return Number.isNaN(value) ? undefined : value;
}

const parsed = (input: string | readonly PrometheusSample[]): readonly PrometheusSample[] =>
  typeof input === 'string' ? parsePrometheusText(input) : input;

/** True when the sample carries every label of the filter with that value. */
export function hasLabels(sample: PrometheusSample, filter: LabelFilter): boolean {
  return Object.entries(filter).every(([k, v]) => sample.labels[k] === v);
}

/** The samples of one metric (exact name) that carry every label of the filter. */
export function samplesNamed(
  input: string | readonly PrometheusSample[],
  name: string,
  filter: LabelFilter = {},
): PrometheusSample[] {
  return parsed(input).filter((s) => s.name === name && hasLabels(s, filter));
}

/**
 * The sum of one metric's samples that carry every label of the filter, 0 when there are none.
 * Non-finite values (a gauge's NaN) are left out so one of them does not poison the sum.
 */
export function metricSum(
  input: string | readonly PrometheusSample[],
  name: string,
  filter: LabelFilter = {},
): number {
  return samplesNamed(input, name, filter).reduce(
    (sum, s) => (Number.isFinite(s.value) ? sum + s.value : sum),
    0,
  );
}

/** One metric's matching samples summed per value of `label` (samples without it left out). */
export function sumByLabel(
  input: string | readonly PrometheusSample[],
  name: string,
  label: string,
  filter: LabelFilter = {},
): Map<string, number> {
  const out = new Map<string, number>();
  for (const s of samplesNamed(input, name, filter)) {
    const key = s.labels[label];
    if (key === undefined || !Number.isFinite(s.value)) continue;
    out.set(key, (out.get(key) ?? 0) + s.value);
  }
  return out;
}

/** The label set as the exposition writes it: `{a="1",b="2"}`, `''` for none. */
export function formatLabels(labels: Readonly<Record<string, string>>): string {
  const pairs = Object.entries(labels).map(
    ([k, v]) => `${k}="${v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`,
  );
  return pairs.length === 0 ? '' : `{${pairs.join(',')}}`;
}

/** One metric's samples by their label set (as `formatLabels` writes it) → value. */
export function valuesBySeries(
  input: string | readonly PrometheusSample[],
  name: string,
): Record<string, number> {
  const out: Record<string, number> = {};
  for (const s of samplesNamed(input, name)) out[formatLabels(s.labels)] = s.value;
  return out;
}
