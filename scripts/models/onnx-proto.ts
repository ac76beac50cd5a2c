import { join } from 'node:path';
import { loadSync, type Type } from 'protobufjs';

/**
 * Plain-object view of the ONNX messages the generator writes, and their
 * protobuf encoding (schema: ./onnx.proto, a field-number-exact subset of the
 * upstream onnx.proto).
 */

/** IR version 8 is the one that goes with opset 17 (ONNX 1.12). */
export const ONNX_IR_VERSION = 8;
export const ONNX_OPSET_VERSION = 17;

/** TensorProto.DataType values used by the generator. */
export const OnnxDataType = { FLOAT: 1, INT64: 7 } as const;
export type OnnxDataType = (typeof OnnxDataType)[keyof typeof OnnxDataType];

/** AttributeProto.AttributeType values used by the generator. */
export const OnnxAttributeType = { FLOAT: 1, INT: 2, INTS: 7 } as const;

export interface OnnxTensor {
  name: string;
  dims: number[];
  dataType: OnnxDataType;
  /** Row-major, fixed-width little-endian element bytes. */
  rawData: Uint8Array;
}

export type OnnxAttribute =
  | { name: string; type: typeof OnnxAttributeType.FLOAT; f: number }
  | { name: string; type: typeof OnnxAttributeType.INT; i: number }
  | { name: string; type: typeof OnnxAttributeType.INTS; ints: number[] };

export interface OnnxNode {
  name: string;
  opType: string;
  input: string[];
  output: string[];
  attribute: OnnxAttribute[];
}

/** A graph input/output: element type and shape (a string is a symbolic dim). */
export interface OnnxValueInfo {
  name: string;
  elemType: OnnxDataType;
  shape: Array<number | string>;
}

export interface OnnxGraph {
  name: string;
  node: OnnxNode[];
  initializer: OnnxTensor[];
  input: OnnxValueInfo[];
  output: OnnxValueInfo[];
}

export interface OnnxModel {
  producerName: string;
  producerVersion: string;
  docString: string;
  graph: OnnxGraph;
  metadata: Array<{ key: string; value: string }>;
}

let modelType: Type | undefined;

function modelProtoType(): Type {
  modelType ??= loadSync(join(__dirname, 'onnx.proto')).lookupType('onnx.ModelProto');
  return modelType;
}

function toValueInfoMessage(info: OnnxValueInfo): object {
  const dim = info.shape.map((d) => (typeof d === 'number' ? { dimValue: d } : { dimParam: d }));
  return { name: info.name, type: { tensorType: { elemType: info.elemType, shape: { dim } } } };
}

function toModelMessage(model: OnnxModel): object {
  const { graph } = model;
  return {
    irVersion: ONNX_IR_VERSION,
    opsetImport: [{ domain: '', version: ONNX_OPSET_VERSION }],
    producerName: model.producerName,
    producerVersion: model.producerVersion,
    docString: model.docString,
    metadataProps: model.metadata,
    graph: {
      name: graph.name,
      node: graph.node,
      initializer: graph.initializer,
      input: graph.input.map(toValueInfoMessage),
      output: graph.output.map(toValueInfoMessage),
    },
  };
}

/** Serializes a model to ModelProto bytes; equal input gives equal bytes. */
export function encodeOnnxModel(model: OnnxModel): Uint8Array {
  return modelProtoType().encode(toModelMessage(model)).finish();
}

/**
 * Decodes ModelProto bytes into a plain object (int64 as numbers, bytes as
 * Buffers), for inspecting generated files.
 */
export function decodeOnnxModel(bytes: Uint8Array): Record<string, unknown> {
  const type = modelProtoType();
  return type.toObject(type.decode(bytes), { longs: Number, defaults: false, arrays: true });
}
