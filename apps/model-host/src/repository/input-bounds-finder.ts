import type { InputBounds, TableBound } from '../core/model-spec';
import type { OnnxGraphWiring, OnnxNodeWiring } from './onnx-graph-reader';

/** Ops that keep a tensor's values (retype or reshape only): ids pass through them unchanged. */
const VALUE_PRESERVING = new Set([
  'Cast',
  'Unsqueeze',
  'Squeeze',
  'Reshape',
  'Flatten',
  'Identity',
  'Expand',
]);

/** How messages name the table an input indexes. */
const TABLE_NAMES: Record<string, string> = {
  input_ids: 'embedding table',
  token_type_ids: 'token-type embedding table',
};

/** A search bound: a graph deeper than this between an input and its table is not an embedding. */
const MAX_DEPTH = 64;

class GraphIndex {
  private readonly producers = new Map<string, OnnxNodeWiring>();
  private readonly inputs: Set<string>;

  constructor(readonly wiring: OnnxGraphWiring) {
    for (const n of wiring.nodes) for (const o of n.output) this.producers.set(o, n);
    // Old exports list initializers among the graph inputs too; those are not client inputs.
    this.inputs = new Set(wiring.inputs.filter((i) => !wiring.initializers.has(i)));
  }

  isClientInput(name: string): boolean {
    return this.inputs.has(name);
  }

  /** Rows of `name` when it is a rank-2 initializer (an embedding table), else undefined. */
  tableRows(name: string | undefined): number | undefined {
    const dims = name === undefined ? undefined : this.wiring.initializers.get(name);
    return dims?.length === 2 && (dims[0] ?? 0) > 0 ? dims[0] : undefined;
  }

  /** The graph input whose values `name` carries (through value-preserving ops), if any. */
  valueSource(name: string | undefined): string | undefined {
    for (let depth = 0; name !== undefined && depth < MAX_DEPTH; depth += 1) {
      if (this.inputs.has(name)) return name;
      const node = this.producers.get(name);
      if (!node || !VALUE_PRESERVING.has(node.opType)) return undefined;
      name = node.input[0];
    }
    return undefined;
  }

  /** The graph input whose shape (a Shape node upstream) determines `name`, if any. */
  shapeSource(name: string | undefined): string | undefined {
    const seen = new Set<string>();
    const queue = name === undefined ? [] : [name];
    while (queue.length > 0 && seen.size < 4096) {
      const next = queue.shift() as string;
      if (seen.has(next)) continue;
      seen.add(next);
      const node = this.producers.get(next);
      if (!node) continue;
      if (node.opType === 'Shape') {
        const source = this.valueSource(node.input[0]);
        if (source) return source;
      }
      queue.push(...node.input.filter((i) => i !== ''));
    }
    return undefined;
  }
}

interface Found {
  ids: Map<string, TableBound>;
  sequence: (TableBound & { input: string })[];
}

function addId(found: Found, input: string | undefined, rows: number | undefined): void {
  if (input === undefined || rows === undefined) return;
  const prev = found.ids.get(input);
  const table = TABLE_NAMES[input] ?? 'embedding table';
  if (!prev || rows < prev.rows) found.ids.set(input, { rows, table });
}

function addSequence(found: Found, input: string | undefined, rows: number | undefined): void {
  if (input !== undefined && rows !== undefined)
    found.sequence.push({ input, rows, table: 'position embedding table' });
}

/** Gather(table, ids) for ids from an input, or Gather(table, positions derived from a shape). */
function visitGather(g: GraphIndex, n: OnnxNodeWiring, found: Found): void {
  const rows = g.tableRows(n.input[0]);
  if (rows === undefined || (n.ints.axis ?? 0) !== 0) return;
  const source = g.valueSource(n.input[1]);
  if (source) addId(found, source, rows);
  else addSequence(found, g.shapeSource(n.input[1]), rows);
}

/** ORT's fused BERT embedding (com.microsoft): ids, segment ids, word, position, segment tables. */
function visitEmbedLayerNorm(g: GraphIndex, n: OnnxNodeWiring, found: Found): void {
  const ids = g.valueSource(n.input[0]);
  addId(found, ids, g.tableRows(n.input[2]));
  addId(found, g.valueSource(n.input[1]), g.tableRows(n.input[4]));
  addSequence(found, ids, g.tableRows(n.input[3]));
}

/**
 * Finds the embedding tables a model's inputs index, from the graph's wiring: the rows of each
 * rank-2 initializer that a Gather reads with ids coming (through casts, reshapes, unsqueezes)
 * from a graph input, and the position table — gathered with positions computed from an input's
 * shape, or sliced to the sequence length — which bounds that input's last dimension. Returns
 * undefined when nothing is recognised: the host then leaves such inputs to the model.
 */
export function findInputBounds(wiring: OnnxGraphWiring): InputBounds | undefined {
  const g = new GraphIndex(wiring);
  const found: Found = { ids: new Map(), sequence: [] };
  for (const n of wiring.nodes) {
    if (n.opType === 'Gather' && n.domain === '') visitGather(g, n, found);
    if (n.opType === 'EmbedLayerNormalization') visitEmbedLayerNorm(g, n, found);
  }
  // A Slice of the position table to the sequence length (no Gather) bounds it the same way;
  // only looked for without a position Gather, whose position-id buffer is sliced like this too.
  if (found.sequence.length === 0) {
    for (const n of wiring.nodes) {
      if (n.opType === 'Slice')
        addSequence(found, g.shapeSource(n.input[2]), g.tableRows(n.input[0]));
    }
  }
  const sameSize = namedDims(g, wiring);
  if (found.ids.size === 0 && found.sequence.length === 0 && sameSize.length === 0) {
    return undefined;
  }
  const sequence = found.sequence.reduce<(typeof found.sequence)[number] | undefined>(
    (min, s) => (min === undefined || s.rows < min.rows ? s : min),
    undefined,
  );
  return {
    ids: Object.fromEntries(found.ids),
    ...(sequence ? { sequence } : {}),
    ...(sameSize.length > 0 ? { sameSize } : {}),
  };
}

/** Symbolic dimension names that two or more client inputs share, with where they appear. */
function namedDims(g: GraphIndex, wiring: OnnxGraphWiring): NonNullable<InputBounds['sameSize']> {
  const byName = new Map<string, { input: string; axis: number }[]>();
  for (const [input, dims] of wiring.inputDims) {
    if (!g.isClientInput(input)) continue;
    dims.forEach((d, axis) => {
      if (typeof d !== 'string') return;
      byName.set(d, [...(byName.get(d) ?? []), { input, axis }]);
    });
  }
  return [...byName]
    .filter(([, members]) => members.length > 1)
    .map(([dim, members]) => ({ dim, members }));
}
