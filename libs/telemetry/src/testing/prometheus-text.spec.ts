import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import {
  formatLabels,
  metricSum,
  parsePrometheusText,
  parseSampleLine,
  samplesNamed,
  sumByLabel,
  valuesBySeries,
} from './prometheus-text';

const TEXT = [
  '# HELP mesh_requests_total Requests.',
  '# TYPE mesh_requests_total counter',
  'mesh_requests_total{model="a",outcome="OK"} 3',
  'mesh_requests_total{model="a",outcome="RATE_LIMITED"} 2',
  'mesh_requests_total{model="b",outcome="OK"} 5',
  'mesh_requests_total_other{model="a",outcome="OK"} 100',
  '',
  'mesh_leader 1',
  'mesh_lag{model="a"} NaN',
  'mesh_lag{model="b"} 0.25',
].join('\n');

describe('parsePrometheusText', () => {
  it('reads every sample line with its name, labels and value, skipping comments and blanks', () => {
    expect(parsePrometheusText(TEXT)).toEqual([
      { name: 'mesh_requests_total', labels: { model: 'a', outcome: 'OK' }, value: 3 },
      { name: 'mesh_requests_total', labels: { model: 'a', outcome: 'RATE_LIMITED' }, value: 2 },
      { name: 'mesh_requests_total', labels: { model: 'b', outcome: 'OK' }, value: 5 },
      { name: 'mesh_requests_total_other', labels: { model: 'a', outcome: 'OK' }, value: 100 },
      { name: 'mesh_leader', labels: {}, value: 1 },
      { name: 'mesh_lag', labels: { model: 'a' }, value: NaN },
      { name: 'mesh_lag', labels: { model: 'b' }, value: 0.25 },
    ]);
  });

  it('unescapes label values and reads spaces, commas and braces inside them', () => {
    expect(parseSampleLine('m{path="a b,c}",q="say \\"hi\\"\\n",s="back\\\\slash"} 7')).toEqual({
      name: 'm',
      labels: { path: 'a b,c}', q: 'say "hi"\n', s: 'back\\slash' },
      value: 7,
    });
  });

  it('reads +Inf, -Inf, exponents, a trailing comma and a timestamp', () => {
    expect(parseSampleLine('h_bucket{le="+Inf",} 4 1700000000000')).toEqual({
      name: 'h_bucket',
      labels: { le: '+Inf' },
      value: 4,
    });
    expect(parseSampleLine('g +Inf').value).toBe(Infinity);
    expect(parseSampleLine('g -Inf').value).toBe(-Infinity);
    expect(parseSampleLine('g 1.5e-3').value).toBe(0.0015);
    expect(parseSampleLine('g Nan').value).toBeNaN();
    expect(parseSampleLine('g +inf').value).toBe(Infinity);
  });

  it('names the line it cannot read', () => {
    expect(() => parsePrometheusText('ok 1\nbroken{model="a 1')).toThrow(
      'not a Prometheus sample line (unterminated value of label model): broken{model="a 1',
    );
    expect(() => parseSampleLine('m{model="a" 1')).toThrow(/label expected at column 13/);
    expect(() => parseSampleLine('m{model=a} 1')).toThrow(/label expected at column 3/);
    expect(() => parseSampleLine('m{model="a"} one')).toThrow(/value one/);
    expect(() => parseSampleLine('m{model="a"}')).toThrow(/expected a value/);
    expect(() => parseSampleLine('9m 1')).toThrow(/no metric name/);
  });

  it('reads what prom-client writes, histograms included', async () => {
    const registry = new Registry();
    const counter = new Counter({
      name: 't_total',
      help: 'h',
      labelNames: ['k'],
      registers: [registry],
    });
    const gauge = new Gauge({ name: 't_gauge', help: 'h', registers: [registry] });
    const unset = new Gauge({ name: 't_unset', help: 'h', registers: [registry] });
    const histogram = new Histogram({
      name: 't_seconds',
      help: 'h',
      buckets: [0.1, 1],
      registers: [registry],
    });
    counter.inc({ k: 'a "quoted" value' }, 2);
    gauge.set(-4);
    unset.set(NaN); // written as `Nan`, as the default event-loop lag gauges are before a sample
    histogram.observe(0.5);
    histogram.observe(3);
    const text = await registry.metrics();
    expect(metricSum(text, 't_total', { k: 'a "quoted" value' })).toBe(2);
    expect(metricSum(text, 't_gauge')).toBe(-4);
    expect(samplesNamed(text, 't_unset')[0]?.value).toBeNaN();
    expect(valuesBySeries(text, 't_seconds_bucket')).toEqual({
      '{le="0.1"}': 0,
      '{le="1"}': 1,
      '{le="+Inf"}': 2,
    });
    expect(metricSum(text, 't_seconds_sum')).toBe(3.5);
    expect(metricSum(text, 't_seconds_count')).toBe(2);
  });
});

describe('the helpers over parsed samples', () => {
  it('sums one metric by exact name over the samples that carry every label of the filter', () => {
    expect(metricSum(TEXT, 'mesh_requests_total')).toBe(10);
    expect(metricSum(TEXT, 'mesh_requests_total', { model: 'a' })).toBe(5);
    expect(metricSum(TEXT, 'mesh_requests_total', { model: 'a', outcome: 'OK' })).toBe(3);
    expect(metricSum(TEXT, 'mesh_requests_total', { model: 'c' })).toBe(0);
    expect(metricSum(TEXT, 'mesh_leader')).toBe(1);
    expect(metricSum(TEXT, 'absent')).toBe(0);
  });

  it('matches label values exactly, not as a substring of another label', () => {
    const text = 'm{submodel="a",model="b"} 1\nm{model="a"} 2';
    expect(metricSum(text, 'm', { model: 'a' })).toBe(2);
  });

  it('leaves non-finite values out of a sum', () => {
    expect(metricSum(TEXT, 'mesh_lag')).toBe(0.25);
  });

  it('accepts parsed samples as well as text', () => {
    const samples = parsePrometheusText(TEXT);
    expect(metricSum(samples, 'mesh_requests_total', { outcome: 'OK' })).toBe(8);
    expect(samplesNamed(samples, 'mesh_requests_total', { model: 'b' })).toEqual([
      { name: 'mesh_requests_total', labels: { model: 'b', outcome: 'OK' }, value: 5 },
    ]);
  });

  it('sums per value of one label', () => {
    expect(sumByLabel(TEXT, 'mesh_requests_total', 'outcome')).toEqual(
      new Map([
        ['OK', 8],
        ['RATE_LIMITED', 2],
      ]),
    );
    expect(sumByLabel(TEXT, 'mesh_requests_total', 'outcome', { model: 'b' })).toEqual(
      new Map([['OK', 5]]),
    );
  });

  it("keys a metric's values by label set, written back as the exposition writes it", () => {
    expect(valuesBySeries(TEXT, 'mesh_requests_total')).toEqual({
      '{model="a",outcome="OK"}': 3,
      '{model="a",outcome="RATE_LIMITED"}': 2,
      '{model="b",outcome="OK"}': 5,
    });
    expect(valuesBySeries(TEXT, 'mesh_leader')).toEqual({ '': 1 });
    expect(formatLabels({ q: 'a "b"\\\n' })).toBe('{q="a \\"b\\"\\\\\\n"}');
  });
});
