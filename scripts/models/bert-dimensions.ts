/** Shape of a BERT encoder; the generator's two sizes are below. */
export interface BertDimensions {
  layers: number;
  hidden: number;
  heads: number;
  intermediate: number;
  maxPositions: number;
  typeVocabSize: number;
}

export type ModelSize = 'tiny' | 'small';

export const MODEL_SIZES: Readonly<Record<ModelSize, Readonly<BertDimensions>>> = {
  // Fast enough to build and run in every test.
  tiny: {
    layers: 2,
    hidden: 128,
    heads: 2,
    intermediate: 512,
    maxPositions: 512,
    typeVocabSize: 2,
  },
  // MiniLM-like, for benchmarks.
  small: {
    layers: 6,
    hidden: 384,
    heads: 12,
    intermediate: 1536,
    maxPositions: 512,
    typeVocabSize: 2,
  },
};

export function isModelSize(value: string): value is ModelSize {
  return Object.prototype.hasOwnProperty.call(MODEL_SIZES, value);
}
