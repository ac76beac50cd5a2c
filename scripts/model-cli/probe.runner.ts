import type { ModelVersionPreprocessor, Prediction } from '@mesh/preprocessing';
import type { FloatOutput, OrtModelClient } from './ort-model.client';

/** Rows of a padded batch may differ from the same texts run alone by at most this much. */
export const PADDING_TOLERANCE = 1e-4;

export interface ProbeResult {
  texts: string[];
  predictions: Prediction[];
  /** Largest |batch-of-4 row − batch-of-1 run| over the real (unpadded) positions. */
  maxPaddingDiff: number;
  problems: string[];
}

/** Probe texts: English, Chinese, a very short one, and one long enough to hit maxLength. */
export function probeTexts(maxLength: number): string[] {
  return [
    'what is the weather like today?',
    '今天天气怎么样？',
    'ok',
    'the service was quick and the staff were kind '.repeat(Math.ceil(maxLength / 4)).trim(),
  ];
}

/** Real positions of row `row` in a [batch, seq, hidden] or [batch, width] output. */
function rowValues(out: FloatOutput, row: number, seqLength: number): Float32Array {
  if (out.shape.length === 3) {
    const [, seq = 0, hidden = 0] = out.shape;
    const start = row * seq * hidden;
    return out.data.subarray(start, start + seqLength * hidden);
  }
  const width = out.shape[out.shape.length - 1] ?? 0;
  return out.data.subarray(row * width, (row + 1) * width);
}

function maxAbsDiff(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) return Number.POSITIVE_INFINITY;
  let max = 0;
  for (let i = 0; i < a.length; i++) max = Math.max(max, Math.abs(a[i]! - b[i]!));
  return max;
}

/**
 * Tokenizes the probes with the version's pipeline, runs each alone (batch 1) and all four
 * padded together (batch 4), and checks that padding does not change any row: a model that
 * ignores attention_mask, or whose positions do not cover maxLength, fails here rather than
 * in production.
 */
export async function runProbes(
  client: OrtModelClient,
  preprocessor: ModelVersionPreprocessor,
  labels: readonly string[],
): Promise<ProbeResult> {
  const { manifest } = preprocessor;
  const output = manifest.postprocess.output;
  const texts = probeTexts(manifest.maxLength);
  const problems: string[] = [];
  const batch = preprocessor.encode(texts.map((text) => ({ text })));
  const together = await client.run(batch.tensors, output);
  let maxPaddingDiff = 0;
  for (const [row, text] of texts.entries()) {
    const single = preprocessor.encode([{ text }]);
    const alone = await client.run(single.tensors, output);
    const diff = maxAbsDiff(
      rowValues(together, row, single.seqLength),
      rowValues(alone, 0, single.seqLength),
    );
    maxPaddingDiff = Math.max(maxPaddingDiff, diff);
  }
  if (!(maxPaddingDiff <= PADDING_TOLERANCE)) {
    problems.push(
      `padding changes the output: rows of a padded batch of 4 differ from single runs by ${maxPaddingDiff} (> ${PADDING_TOLERANCE}); the model must apply attention_mask`,
    );
  }
  if (manifest.postprocess.kind === 'classification') {
    const width = together.shape[together.shape.length - 1];
    if (width !== labels.length) {
      problems.push(
        `output '${output}' returns ${width} classes but the model has ${labels.length} labels`,
      );
      return { texts, predictions: [], maxPaddingDiff, problems };
    }
  }
  const predictions = preprocessor.postprocess(together, batch);
  return { texts, predictions, maxPaddingDiff, problems };
}
