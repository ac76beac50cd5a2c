/** How a text pair is cut down to `maxLength` (single texts always keep their first tokens). */
export type PairTruncation = 'only_second' | 'longest_first';

/**
 * One released preprocessing behaviour. Immutable: changing what any of these fields or
 * `prepare` do is a new version with its own golden vectors.
 */
export interface PipelineDefinition {
  readonly id: string;
  readonly name: string;
  readonly version: number;
  /** `fixed`: every row padded to `maxLength`; `dynamic`: to the longest row of the batch. */
  readonly padding: 'fixed' | 'dynamic';
  readonly truncation: PairTruncation;
  readonly description: string;
  /** The pipeline's own text step, run before the tokenizer (after well-forming). */
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
    truncation: 'only_second' as const,
    description:
      'BERT normalisation + WordPiece from tokenizer.json, [CLS] A [SEP] (B [SEP]), pairs lose ' +
      'tokens from the end of B first then A, fixed padding to maxLength',
    prepare: identity,
  }),
  Object.freeze({
    id: 'bert-wordpiece@2',
    name: 'bert-wordpiece',
    version: 2,
    padding: 'dynamic' as const,
    truncation: 'longest_first' as const,
    description:
      'Unicode NFKC before the tokenizer, then as @1; pairs truncated longest-first; dynamic ' +
      'padding to the longest item of the batch',
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
