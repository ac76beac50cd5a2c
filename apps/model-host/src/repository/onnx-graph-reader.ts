import { readFile } from 'node:fs/promises';
import { Root, type Type } from 'protobufjs';

/** One node of an ONNX graph: its operator, wiring and integer attributes (e.g. Gather's axis). */
export interface OnnxNodeWiring {
  opType: string;
  domain: string;
  input: string[];
  output: string[];
  ints: Record<string, number>;
}

/** What the host reads from a model file besides ORT's metadata: names, dims and wiring. */
export interface OnnxGraphWiring {
  inputs: string[];
  /** Graph input → its declared dims: a size, a symbolic name (`dim_param`), or unknown. */
  inputDims: Map<string, (number | string | undefined)[]>;
  /** Initializer name → dims. */
  initializers: Map<string, number[]>;
  nodes: OnnxNodeWiring[];
}

/*
 * The few ModelProto fields the host reads, with their upstream field numbers (onnx/onnx.proto).
 * Everything else — raw_data and the typed *_data weight arrays above all — is not declared, so
 * the decoder steps over it by length without copying or converting it.
 */
const SCHEMA = {
  nested: {
    onnx: {
      nested: {
        ModelProto: { fields: { graph: { type: 'GraphProto', id: 7 } } },
        GraphProto: {
          fields: {
            node: { rule: 'repeated', type: 'NodeProto', id: 1 },
            initializer: { rule: 'repeated', type: 'TensorProto', id: 5 },
            input: { rule: 'repeated', type: 'ValueInfoProto', id: 11 },
          },
        },
        NodeProto: {
          fields: {
            input: { rule: 'repeated', type: 'string', id: 1 },
            output: { rule: 'repeated', type: 'string', id: 2 },
            opType: { type: 'string', id: 4 },
            attribute: { rule: 'repeated', type: 'AttributeProto', id: 5 },
            domain: { type: 'string', id: 7 },
          },
        },
        AttributeProto: {
          fields: {
            name: { type: 'string', id: 1 },
            i: { type: 'int64', id: 3 },
            type: { type: 'int32', id: 20 },
          },
        },
        TensorProto: {
          fields: {
            dims: { rule: 'repeated', type: 'int64', id: 1 },
            name: { type: 'string', id: 8 },
          },
        },
        ValueInfoProto: {
          fields: { name: { type: 'string', id: 1 }, type: { type: 'TypeProto', id: 2 } },
        },
        TypeProto: { fields: { tensorType: { type: 'TypeProtoTensor', id: 1 } } },
        TypeProtoTensor: { fields: { shape: { type: 'TensorShapeProto', id: 2 } } },
        TensorShapeProto: { fields: { dim: { rule: 'repeated', type: 'Dimension', id: 1 } } },
        Dimension: {
          fields: { dimValue: { type: 'int64', id: 1 }, dimParam: { type: 'string', id: 2 } },
        },
      },
    },
  },
};

/** AttributeProto.AttributeType INT. */
const ATTRIBUTE_INT = 2;

let modelType: Type | undefined;

interface Decoded {
  graph?: {
    node?: {
      input?: string[];
      output?: string[];
      opType?: string;
      domain?: string;
      attribute?: { name?: string; i?: number; type?: number }[];
    }[];
    initializer?: { dims?: number[]; name?: string }[];
    input?: {
      name?: string;
      type?: { tensorType?: { shape?: { dim?: { dimValue?: number; dimParam?: string }[] } } };
    }[];
  };
}

/** Reads the graph's inputs, initializer dims and node wiring from ModelProto bytes. */
export function readOnnxGraphWiring(bytes: Uint8Array): OnnxGraphWiring {
  modelType ??= Root.fromJSON(SCHEMA).lookupType('onnx.ModelProto');
  const model = modelType.toObject(modelType.decode(bytes), {
    longs: Number,
    arrays: true,
  }) as Decoded;
  const graph = model.graph ?? {};
  return {
    inputs: (graph.input ?? []).map((i) => i.name ?? ''),
    inputDims: new Map(
      (graph.input ?? []).map((i) => [
        i.name ?? '',
        (i.type?.tensorType?.shape?.dim ?? []).map((d) => d.dimParam || d.dimValue || undefined),
      ]),
    ),
    initializers: new Map((graph.initializer ?? []).map((t) => [t.name ?? '', t.dims ?? []])),
    nodes: (graph.node ?? []).map((n) => ({
      opType: n.opType ?? '',
      domain: n.domain ?? '',
      input: n.input ?? [],
      output: n.output ?? [],
      ints: Object.fromEntries(
        (n.attribute ?? [])
          .filter((a) => a.type === ATTRIBUTE_INT && a.name)
          .map((a): [string, number] => [a.name ?? '', a.i ?? 0]),
      ),
    })),
  };
}

/**
 * The wiring of the model file at `path`, or undefined when it is not a ModelProto this reader
 * understands (ORT reports the real problem when it opens the file).
 */
export async function readOnnxGraphWiringFile(path: string): Promise<OnnxGraphWiring | undefined> {
  try {
    return readOnnxGraphWiring(await readFile(path));
  } catch {
    return undefined;
  }
}
