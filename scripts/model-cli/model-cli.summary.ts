import { formatSignatureShape, type TensorSignature } from '@mesh/model-repository';
import type { Prediction } from '@mesh/preprocessing';
import type { ModelAddResult } from './model-add.service';
import type { ModelCheckReport } from './model-check.service';
import type { VersionReport } from './version.validator';

/** Human-readable reports of `mesh model add` and `mesh model check`. */

const tensor = (t: TensorSignature): string =>
  `${t.name} ${t.type} ${formatSignatureShape(t.shape)}`;

const clip = (text: string, n = 40): string =>
  text.length > n ? `${text.slice(0, n - 1)}…` : text;

function prediction(p: Prediction): string {
  if (p.kind === 'classification') return `${p.label} ${p.score.toFixed(4)}`;
  const head = p.embedding.slice(0, 3).map((x) => x.toFixed(4));
  return `embedding[${p.embedding.length}] (${head.join(', ')}, ...)`;
}

function versionLines(r: VersionReport): string[] {
  const lines: string[] = [];
  const m = r.manifest;
  if (r.signature) {
    lines.push(`  inputs:    ${r.signature.inputs.map(tensor).join(', ')}`);
    lines.push(`  outputs:   ${r.signature.outputs.map(tensor).join(', ')}`);
  }
  if (m) {
    lines.push(
      `  pipeline:  ${m.pipeline}@${m.pipelineVersion}, maxLength ${m.maxLength}, ${m.padding} padding`,
    );
    lines.push(`  serves:    ${m.postprocess.output} (${m.postprocess.kind})`);
    lines.push(`  model.onnx sha256 ${r.modelSha256 ?? '?'}`);
    lines.push(`  ${m.tokenizer.file} sha256 ${m.tokenizer.sha256}`);
  }
  if (r.probes) {
    lines.push(
      `  padding invariance: max |batch 4 - batch 1| = ${r.probes.maxPaddingDiff.toExponential(2)} (limit 1e-4)`,
    );
    lines.push('  probe predictions:');
    r.probes.predictions.forEach((p, i) => {
      lines.push(`    ${JSON.stringify(clip(r.probes!.texts[i] ?? ''))} -> ${prediction(p)}`);
    });
  }
  for (const note of r.notes) lines.push(`  note: ${note}`);
  for (const problem of r.problems) lines.push(`  PROBLEM: ${problem}`);
  return lines;
}

export function formatAddResult(r: ModelAddResult, repository: string): string {
  const what = r.existingModel
    ? `${r.replaced ? 'replaced' : 'added'} version ${r.version} of the existing model ${r.model}`
    : `added the new model ${r.model} with version ${r.version}`;
  const lines = [`${what} in ${repository}`, ...versionLines({ ...r.report, notes: [] })];
  if (r.labels.length > 0)
    lines.splice(3, 0, `  labels:    ${r.labels.length} (${clip(r.labels.join(', '), 80)})`);
  lines.push(
    `  memory:    memory_mb_v${r.version} = ${r.memory.mb} (measured load: ${r.memory.instances} instance(s) and any lone-batch session)`,
  );
  for (const note of r.notes) lines.push(`  note: ${note}`);
  return lines.join('\n');
}

export function formatCheckReports(reports: readonly ModelCheckReport[]): string {
  const lines: string[] = [];
  for (const model of reports) {
    for (const w of model.warnings) lines.push(`${model.model}: warning: ${w}`);
    for (const p of model.problems) lines.push(`${model.model}: PROBLEM: ${p}`);
    for (const v of model.versions) {
      lines.push(`${v.problems.length === 0 ? 'ok' : 'FAILED'} ${v.model}/${v.version}`);
      lines.push(...versionLines(v));
    }
  }
  return lines.join('\n');
}
