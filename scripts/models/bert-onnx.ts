import type { BertDimensions } from './bert-dimensions';
import { attr, OnnxGraphBuilder } from './onnx-graph.builder';
import { encodeOnnxModel, OnnxDataType, type OnnxModel } from './onnx-proto';
import { SeededParams } from './seeded-params';

/**
 * BERT-architecture ONNX graphs (opset 17) with seeded random weights:
 * embeddings → LayerNorm → N encoder layers → tanh pooler on [CLS] → linear
 * classifier (`logits`), or the bare encoder (`last_hidden_state`).
 */

export type BertHead = { kind: 'classification'; numLabels: number } | { kind: 'encoder' };

export interface BertModelSpec {
  /** Graph name, also recorded in the model's metadata. */
  name: string;
  /** Seeds every weight: same seed, dimensions and head → byte-identical file. */
  seed: string;
  vocabSize: number;
  dims: BertDimensions;
  head: BertHead;
  /**
   * Input axes; default `batch` × `sequence`, both dynamic. A number fixes that axis (as an
   * export without dynamic axes does), e.g. `{ batch: 1, sequence: 512 }`.
   */
  axes?: { batch: number | string; sequence: number | string };
  /**
   * Additive attention penalty on padded positions (default -10000). 0 makes a broken export
   * whose outputs change with padding, for tests of the padding-invariance check.
   */
  maskPenalty?: number;
  /**
   * `run`: a classifier that loads and passes an all-[PAD] warm-up, but fails every inference
   * on real tokens (an out-of-range Gather at run time). Tests use it as a version that errors
   * for every input, e.g. for gates that must roll a rollout back; the demo models never set it.
   */
  fault?: 'run';
}

/** Bumped whenever the graph or weight recipe changes (changes every hash). */
export const GENERATOR_VERSION = '1';

// BERT's 0.02 init for embeddings; dense layers use 1/sqrt(fan_in) instead,
// because at 0.02 an untrained encoder barely mixes tokens and every input
// would get nearly the same logits. The classifier gain spreads the logits.
const EMBEDDING_STD = 0.02;
const BIAS_STD = 0.02;
const LAYER_NORM_STD = 0.02;
const CLASSIFIER_GAIN = 3;
const LAYER_NORM_EPSILON = 1e-12;
const MASK_PENALTY = -10000;

interface Constants {
  one: string;
  half: string;
  invSqrt2: string;
  maskPenalty: string;
  attentionScale: string;
  splitHeadsShape: string;
  mergeHeadsShape: string;
  maskAxes: string;
  /** The classifier head's [CLS] position; undefined for an encoder, which has no head. */
  zeroIndex: string | undefined;
  sliceStart: string;
  sliceAxes: string;
}

interface Ctx {
  g: OnnxGraphBuilder;
  p: SeededParams;
  dims: BertDimensions;
  c: Constants;
}

function constants(
  g: OnnxGraphBuilder,
  p: SeededParams,
  dims: BertDimensions,
  maskPenalty: number,
  head: BertHead['kind'],
): Constants {
  const headDim = dims.hidden / dims.heads;
  return {
    one: p.scalar('const.one', 1),
    half: p.scalar('const.half', 0.5),
    invSqrt2: p.scalar('const.inv_sqrt2', 1 / Math.sqrt(2)),
    maskPenalty: p.scalar('const.mask_penalty', maskPenalty),
    attentionScale: p.scalar('const.attention_scale', 1 / Math.sqrt(headDim)),
    // Reshape's 0 copies the input dim, so batch and sequence stay dynamic.
    splitHeadsShape: g.int64Initializer(
      'const.split_heads_shape',
      [4],
      [0, 0, dims.heads, headDim],
    ),
    mergeHeadsShape: g.int64Initializer('const.merge_heads_shape', [3], [0, 0, dims.hidden]),
    maskAxes: g.int64Initializer('const.mask_axes', [2], [1, 2]),
    // Only a model that reads it gets it: onnxruntime warns at every load about an initializer
    // no node reads. Made here, in the same place, so classifier models keep their bytes.
    zeroIndex:
      head === 'classification' ? g.int64Initializer('const.zero_index', [], [0]) : undefined,
    sliceStart: g.int64Initializer('const.slice_start', [1], [0]),
    sliceAxes: g.int64Initializer('const.slice_axes', [1], [0]),
  };
}

function dense(
  ctx: Ctx,
  x: string,
  prefix: string,
  inDim: number,
  outDim: number,
  gain = 1,
): string {
  const weight = ctx.p.normal(`${prefix}.weight`, [inDim, outDim], gain / Math.sqrt(inDim));
  const bias = ctx.p.normal(`${prefix}.bias`, [outDim], BIAS_STD);
  return ctx.g.op(
    'Add',
    [ctx.g.op('MatMul', [x, weight], `${prefix}/matmul`), bias],
    `${prefix}/out`,
  );
}

function layerNorm(ctx: Ctx, x: string, prefix: string): string {
  const scale = ctx.p.normal(`${prefix}.weight`, [ctx.dims.hidden], LAYER_NORM_STD, 1);
  const bias = ctx.p.normal(`${prefix}.bias`, [ctx.dims.hidden], BIAS_STD);
  const attributes = [attr.int('axis', -1), attr.float('epsilon', LAYER_NORM_EPSILON)];
  return ctx.g.op('LayerNormalization', [x, scale, bias], `${prefix}/out`, attributes);
}

function embeddings(ctx: Ctx, inputIds: string, tokenTypeIds: string, vocabSize: number): string {
  const { g, p, dims, c } = ctx;
  const word = p.normal('embeddings.word_embeddings', [vocabSize, dims.hidden], EMBEDDING_STD);
  const position = p.normal(
    'embeddings.position_embeddings',
    [dims.maxPositions, dims.hidden],
    EMBEDDING_STD,
  );
  const tokenType = p.normal(
    'embeddings.token_type_embeddings',
    [dims.typeVocabSize, dims.hidden],
    EMBEDDING_STD,
  );
  const wordVectors = g.op('Gather', [word, inputIds], 'embeddings/word');
  // Positions 0..seq-1 are the first `seq` rows of the position table.
  const seqLen = g.op('Shape', [inputIds], 'embeddings/seq_len', [
    attr.int('start', 1),
    attr.int('end', 2),
  ]);
  const positionVectors = g.op(
    'Slice',
    [position, c.sliceStart, seqLen, c.sliceAxes],
    'embeddings/position',
  );
  const typeVectors = g.op('Gather', [tokenType, tokenTypeIds], 'embeddings/token_type');
  const wordAndPosition = g.op('Add', [wordVectors, positionVectors], 'embeddings/word_position');
  const sum = g.op('Add', [wordAndPosition, typeVectors], 'embeddings/sum');
  return layerNorm(ctx, sum, 'embeddings.LayerNorm');
}

/** (1 - mask) * -10000 as [batch, 1, 1, seq]: broadcasts over heads and queries. */
function additiveMask(ctx: Ctx, attentionMask: string): string {
  const { g, c } = ctx;
  const mask = g.op('Cast', [attentionMask], 'mask/float', [attr.int('to', OnnxDataType.FLOAT)]);
  const inverted = g.op('Sub', [c.one, mask], 'mask/inverted');
  const penalty = g.op('Mul', [inverted, c.maskPenalty], 'mask/penalty');
  return g.op('Unsqueeze', [penalty, c.maskAxes], 'mask/additive');
}

/** [batch, seq, hidden] → per-head layout given by `perm` over [batch, seq, heads, headDim]. */
function splitHeads(ctx: Ctx, x: string, stem: string, perm: number[]): string {
  const split = ctx.g.op('Reshape', [x, ctx.c.splitHeadsShape], `${stem}/split`);
  return ctx.g.op('Transpose', [split], `${stem}/heads`, [attr.ints('perm', perm)]);
}

function selfAttention(ctx: Ctx, x: string, mask: string, prefix: string): string {
  const { g, c, dims } = ctx;
  const project = (name: string): string =>
    dense(ctx, x, `${prefix}.self.${name}`, dims.hidden, dims.hidden);
  const query = splitHeads(ctx, project('query'), `${prefix}/query`, [0, 2, 1, 3]);
  const keyT = splitHeads(ctx, project('key'), `${prefix}/key`, [0, 2, 3, 1]);
  const value = splitHeads(ctx, project('value'), `${prefix}/value`, [0, 2, 1, 3]);
  const raw = g.op('MatMul', [query, keyT], `${prefix}/raw_scores`);
  const scores = g.op('Mul', [raw, c.attentionScale], `${prefix}/scores`);
  const masked = g.op('Add', [scores, mask], `${prefix}/masked_scores`);
  const probs = g.op('Softmax', [masked], `${prefix}/probs`, [attr.int('axis', -1)]);
  const context = g.op('MatMul', [probs, value], `${prefix}/context`);
  const contextT = g.op('Transpose', [context], `${prefix}/context_t`, [
    attr.ints('perm', [0, 2, 1, 3]),
  ]);
  const merged = g.op('Reshape', [contextT, c.mergeHeadsShape], `${prefix}/merged`);
  const out = dense(ctx, merged, `${prefix}.output.dense`, dims.hidden, dims.hidden);
  return layerNorm(ctx, g.op('Add', [out, x], `${prefix}/residual`), `${prefix}.output.LayerNorm`);
}

/** Exact GELU: 0.5 · x · (1 + erf(x / √2)). */
function gelu(ctx: Ctx, x: string, stem: string): string {
  const { g, c } = ctx;
  const erf = g.op('Erf', [g.op('Mul', [x, c.invSqrt2], `${stem}/scaled`)], `${stem}/erf`);
  const gate = g.op('Mul', [g.op('Add', [erf, c.one], `${stem}/one_plus`), c.half], `${stem}/gate`);
  return g.op('Mul', [x, gate], `${stem}/out`);
}

function feedForward(ctx: Ctx, x: string, prefix: string): string {
  const { dims } = ctx;
  const hidden = gelu(
    ctx,
    dense(ctx, x, `${prefix}.intermediate.dense`, dims.hidden, dims.intermediate),
    `${prefix}/gelu`,
  );
  const out = dense(ctx, hidden, `${prefix}.output.dense`, dims.intermediate, dims.hidden);
  return layerNorm(
    ctx,
    ctx.g.op('Add', [out, x], `${prefix}/residual`),
    `${prefix}.output.LayerNorm`,
  );
}

function classifierHead(ctx: Ctx, hidden: string, numLabels: number): string {
  const { g, c, dims } = ctx;
  const cls = g.op('Gather', [hidden, c.zeroIndex!], 'pooler/cls', [attr.int('axis', 1)]);
  const pooled = g.op(
    'Tanh',
    [dense(ctx, cls, 'pooler.dense', dims.hidden, dims.hidden)],
    'pooler/tanh',
  );
  return dense(ctx, pooled, 'classifier', dims.hidden, numLabels, CLASSIFIER_GAIN);
}

/**
 * Adds zero to the logits, looked up in a one-entry table by every token id: id 0 ([PAD], all
 * a load-time warm-up sends) is in range, any real token ([CLS] = 2 first of all) is not, and
 * ONNX Runtime checks Gather indices when it runs the node. The model loads, warms up and
 * matches its config, then fails every real request.
 */
function failOnRealTokens(ctx: Ctx, logits: string, inputIds: string): string {
  const { g } = ctx;
  const table = g.floatInitializer('fault.token_table', [1], new Float32Array([0]));
  const picked = g.op('Gather', [table, inputIds], 'fault/gather');
  const axes = g.int64Initializer('fault.sum_axes', [1], [1]);
  const zero = g.op('ReduceSum', [picked, axes], 'fault/sum');
  return g.op('Add', [logits, zero], 'fault/add');
}

function buildGraph(spec: BertModelSpec): OnnxModel['graph'] {
  const g = new OnnxGraphBuilder();
  const p = new SeededParams(g, spec.seed);
  const ctx: Ctx = {
    g,
    p,
    dims: spec.dims,
    c: constants(g, p, spec.dims, spec.maskPenalty ?? MASK_PENALTY, spec.head.kind),
  };
  const dynamic = [spec.axes?.batch ?? 'batch', spec.axes?.sequence ?? 'sequence'];
  const inputIds = g.input('input_ids', OnnxDataType.INT64, dynamic);
  const attentionMask = g.input('attention_mask', OnnxDataType.INT64, dynamic);
  const tokenTypeIds = g.input('token_type_ids', OnnxDataType.INT64, dynamic);
  const mask = additiveMask(ctx, attentionMask);
  let hidden = embeddings(ctx, inputIds, tokenTypeIds, spec.vocabSize);
  for (let layer = 0; layer < spec.dims.layers; layer += 1) {
    hidden = selfAttention(ctx, hidden, mask, `encoder.layer.${layer}.attention`);
    hidden = feedForward(ctx, hidden, `encoder.layer.${layer}`);
  }
  if (spec.head.kind === 'encoder') {
    g.exposeAs(hidden, 'last_hidden_state', OnnxDataType.FLOAT, [...dynamic, spec.dims.hidden]);
  } else {
    let logits = classifierHead(ctx, hidden, spec.head.numLabels);
    if (spec.fault === 'run') logits = failOnRealTokens(ctx, logits, inputIds);
    g.exposeAs(logits, 'logits', OnnxDataType.FLOAT, [dynamic[0]!, spec.head.numLabels]);
  }
  return g.build(spec.name);
}

/** Builds the ONNX ModelProto bytes for `spec`; deterministic in `spec`. */
export function buildBertOnnx(spec: BertModelSpec): Uint8Array {
  const { dims } = spec;
  if (dims.hidden % dims.heads !== 0)
    throw new Error(`hidden ${dims.hidden} is not divisible by ${dims.heads} heads`);
  return encodeOnnxModel({
    producerName: 'model-mesh-demo-generator',
    producerVersion: GENERATOR_VERSION,
    docString: `Demo BERT ${spec.head.kind} model with seeded random weights (not trained).`,
    graph: buildGraph(spec),
    metadata: [
      { key: 'mesh.generator_version', value: GENERATOR_VERSION },
      { key: 'mesh.seed', value: spec.seed },
      { key: 'mesh.dims', value: JSON.stringify(dims) },
      { key: 'mesh.head', value: JSON.stringify(spec.head) },
    ],
  });
}
