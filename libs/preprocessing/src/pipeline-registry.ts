import type { PreprocessManifest } from '@mesh/model-repository';

type Truncation = PreprocessManifest['truncation'];

/**
 * One released preprocessing behaviour. Immutable: changing what any of these fields or
 * `prepare` do is a new version with its own golden vectors.
 */
export interface PipelineDefinition {
  readonly id: string;
  readonly name: string;
  readonly version: number;
  /** `fixed`: every row padded to `maxLength`; `dynamic`: to the longest row of the batch. */
  readonly padding: PreprocessManifest['padding'];
  /** Whether text pairs are accepted; pairs are truncated longest-first. */
  readonly pairs: boolean;
  /** Manifest `truncation` values that describe what this pipeline does. */
  readonly truncation: readonly Truncation[];
  readonly description: string;
  /**
   * The pipeline's own text step, run before the tokenizer (after lone surrogates became
   * U+FFFD). Must work per character run so that a text cut at a safe point (see safe-cut.ts)
   * prepares to the prefix of the whole text's result.
   */
  prepare(text: string): string;
}

const identity = (text: string): string => text;
// NFKC folds full-width forms (Ａ１，) to their ASCII/half-width equivalents, which the
// WordPiece vocabulary holds; the tokenizer.json itself stays unchanged.
const nfkc = (text: string): string => text.normalize('NFKC');

const BUILT_IN: readonly PipelineDefinition[] = [
  Object.freeze({
    id: 'bert-wordpiece@1',
    name: 'bert-wordpiece',
    version: 1,
    padding: 'fixed' as const,
    pairs: false,
    // For a single text every strategy keeps the first maxLength - 2 tokens.
    truncation: Object.freeze(['longest_first', 'only_first'] as const),
    description:
      'BERT normalisation + WordPiece from tokenizer.json, [CLS] text [SEP], truncation to ' +
      'maxLength, fixed padding to maxLength; single texts only',
    prepare: identity,
  }),
  Object.freeze({
    id: 'bert-wordpiece@2',
    name: 'bert-wordpiece',
    version: 2,
    padding: 'dynamic' as const,
    pairs: true,
    truncation: Object.freeze(['longest_first'] as const),
    description:
      'Unicode NFKC before the tokenizer, then as @1; text pairs [CLS] A [SEP] B [SEP] ' +
      'truncated longest-first; dynamic padding to the longest item of the batch',
    prepare: nfkc,
  }),
];

/** The `name@version` pipelines compiled into this build. */
export class PipelineRegistry {
  private readonly byId: ReadonlyMap<string, PipelineDefinition>;

  constructor(definitions: readonly PipelineDefinition[] = BUILT_IN) {
    this.byId = new Map(definitions.map((d) => [d.id, d]));
  }

  static pipelineId(name: string, version: number): string {
    return `${name}@${version}`;
  }

  get(name: string, version: number): PipelineDefinition | undefined {
    return this.byId.get(PipelineRegistry.pipelineId(name, version));
  }

  list(): PipelineDefinition[] {
    return [...this.byId.values()];
  }
}
