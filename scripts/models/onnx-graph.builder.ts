import {
  OnnxAttributeType,
  OnnxDataType,
  type OnnxAttribute,
  type OnnxGraph,
  type OnnxNode,
  type OnnxTensor,
  type OnnxValueInfo,
} from './onnx-proto';

const HOST_IS_LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** ONNX raw_data is little-endian whatever the host is. */
function littleEndianBytes(values: Float32Array | BigInt64Array): Uint8Array {
  const bytes = new Uint8Array(values.buffer, values.byteOffset, values.byteLength);
  if (HOST_IS_LITTLE_ENDIAN) return bytes;
  const copy = Uint8Array.from(bytes);
  const width = values.BYTES_PER_ELEMENT;
  for (let i = 0; i < copy.length; i += width) copy.subarray(i, i + width).reverse();
  return copy;
}

function elementCount(dims: readonly number[]): number {
  return dims.reduce((n, d) => n * d, 1);
}

export const attr = {
  float: (name: string, f: number): OnnxAttribute => ({ name, type: OnnxAttributeType.FLOAT, f }),
  int: (name: string, i: number): OnnxAttribute => ({ name, type: OnnxAttributeType.INT, i }),
  ints: (name: string, ints: number[]): OnnxAttribute => ({
    name,
    type: OnnxAttributeType.INTS,
    ints,
  }),
};

/**
 * Accumulates an ONNX graph in topological order. Node outputs get unique,
 * readable names derived from a caller-given stem, so the graph (and thus the
 * file bytes) depend only on the order of calls.
 */
export class OnnxGraphBuilder {
  private readonly nodes: OnnxNode[] = [];
  private readonly initializers: OnnxTensor[] = [];
  private readonly inputs: OnnxValueInfo[] = [];
  private readonly outputs: OnnxValueInfo[] = [];
  private readonly usedNames = new Set<string>();

  input(name: string, elemType: OnnxDataType, shape: Array<number | string>): string {
    this.claim(name);
    this.inputs.push({ name, elemType, shape });
    return name;
  }

  output(name: string, elemType: OnnxDataType, shape: Array<number | string>): void {
    this.outputs.push({ name, elemType, shape });
  }

  floatInitializer(name: string, dims: number[], values: Float32Array): string {
    if (values.length !== elementCount(dims)) {
      throw new Error(`initializer ${name}: ${values.length} values for dims [${dims.join(', ')}]`);
    }
    return this.addInitializer(name, dims, OnnxDataType.FLOAT, littleEndianBytes(values));
  }

  int64Initializer(name: string, dims: number[], values: readonly number[]): string {
    if (values.length !== elementCount(dims)) {
      throw new Error(`initializer ${name}: ${values.length} values for dims [${dims.join(', ')}]`);
    }
    const data = BigInt64Array.from(values, (v) => BigInt(v));
    return this.addInitializer(name, dims, OnnxDataType.INT64, littleEndianBytes(data));
  }

  /** Adds a node and returns its single output name (`<stem>`, made unique). */
  op(opType: string, inputs: string[], stem: string, attributes: OnnxAttribute[] = []): string {
    const output = this.uniqueName(stem);
    this.nodes.push({
      name: `${output}/${opType}`,
      opType,
      input: inputs,
      output: [output],
      attribute: attributes,
    });
    return output;
  }

  /** Makes `source` a graph output under `name` (an Identity node). */
  exposeAs(
    source: string,
    name: string,
    elemType: OnnxDataType,
    shape: Array<number | string>,
  ): void {
    this.claim(name);
    this.nodes.push({
      name: `${name}/Identity`,
      opType: 'Identity',
      input: [source],
      output: [name],
      attribute: [],
    });
    this.output(name, elemType, shape);
  }

  build(name: string): OnnxGraph {
    return {
      name,
      node: [...this.nodes],
      initializer: [...this.initializers],
      input: [...this.inputs],
      output: [...this.outputs],
    };
  }

  private addInitializer(
    name: string,
    dims: number[],
    dataType: OnnxDataType,
    rawData: Uint8Array,
  ): string {
    this.claim(name);
    this.initializers.push({ name, dims, dataType, rawData });
    return name;
  }

  private claim(name: string): void {
    if (this.usedNames.has(name)) throw new Error(`duplicate ONNX value name: ${name}`);
    this.usedNames.add(name);
  }

  private uniqueName(stem: string): string {
    let name = stem;
    for (let n = 1; this.usedNames.has(name); n += 1) name = `${stem}_${n}`;
    this.usedNames.add(name);
    return name;
  }
}
