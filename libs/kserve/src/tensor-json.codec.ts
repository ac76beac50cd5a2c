import {
  InferRequestError,
  TensorDatatypeError,
  TensorShapeError,
  TensorSizeError,
  TensorValueError,
} from './tensor.errors';
import { elementCount, formatShape } from './tensor-shape';
import { typedArrayToValues, valuesToTypedArray } from './tensor-values';
import { isKServeDatatype, type Tensor, type TensorRef, type TypedArray } from './tensor.types';

export type JsonParameterValue = boolean | number | string;

/** A tensor in KServe v2 REST JSON. `data` is flat or nested row-major. */
export interface JsonTensor {
  name: string;
  shape: number[];
  datatype: string;
  parameters?: Record<string, JsonParameterValue>;
  data: unknown[];
}

export interface JsonRequestedOutput {
  name: string;
  parameters?: Record<string, JsonParameterValue>;
}

/** A KServe v2 REST inference request after validation. */
export interface ParsedJsonInferRequest {
  id?: string;
  parameters: Record<string, JsonParameterValue>;
  inputs: Tensor[];
  outputs: JsonRequestedOutput[];
}

export interface JsonInferResponse {
  model_name: string;
  model_version?: string;
  id?: string;
  parameters?: Record<string, JsonParameterValue>;
  outputs: JsonTensor[];
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function parseParameters(raw: unknown, where: string): Record<string, JsonParameterValue> {
  if (raw === undefined) return {};
  if (!isRecord(raw)) throw new InferRequestError(`${where}: parameters must be an object`);
  const out: Record<string, JsonParameterValue> = {};
  for (const [k, v] of Object.entries(raw)) {
    if (typeof v !== 'boolean' && typeof v !== 'number' && typeof v !== 'string') {
      throw new InferRequestError(`${where}: parameter '${k}' must be a boolean, number or string`);
    }
    out[k] = v;
  }
  return out;
}

/** Validates one JSON tensor (flat or nested data) into a domain tensor. */
export function jsonToTensor(raw: unknown, role: TensorRef['role'] = 'input'): Tensor {
  if (!isRecord(raw) || typeof raw.name !== 'string' || raw.name === '') {
    throw new InferRequestError(`every ${role} needs a non-empty string 'name'`);
  }
  const ref: TensorRef = { role, name: raw.name };
  if (!Array.isArray(raw.shape) || !raw.shape.every((d) => typeof d === 'number')) {
    throw new TensorShapeError(ref, `'shape' must be an array of integers`);
  }
  const shape = raw.shape;
  const count = elementCount(shape, ref);
  const datatype = raw.datatype;
  if (!isKServeDatatype(datatype)) {
    throw new TensorDatatypeError(ref, `unknown datatype '${String(datatype)}'`);
  }
  if (!Array.isArray(raw.data)) throw new TensorValueError(ref, `'data' must be an array`);
  const flat: unknown[] = raw.data.flat(Infinity);
  if (flat.length !== count) {
    throw new TensorSizeError(
      ref,
      `data has ${flat.length} elements, expected ${count} (shape ${formatShape(shape)})`,
    );
  }
  if (datatype === 'BYTES') {
    const data = flat.map((el, i) => {
      if (typeof el !== 'string') throw new TensorValueError(ref, `element ${i} is not a string`);
      return Buffer.from(el, 'utf8');
    });
    return { name: raw.name, datatype, shape: [...shape], data };
  }
  return {
    name: raw.name,
    datatype,
    shape: [...shape],
    data: valuesToTypedArray(flat, datatype, ref),
  };
}

/** Domain tensor → KServe v2 JSON (flat data; BYTES as UTF-8 strings). */
export function tensorToJson(tensor: Tensor): JsonTensor {
  const data =
    tensor.datatype === 'BYTES'
      ? (tensor.data as Buffer[]).map((b) => b.toString('utf8'))
      : typedArrayToValues(tensor.data as TypedArray, tensor.datatype);
  return { name: tensor.name, shape: [...tensor.shape], datatype: tensor.datatype, data };
}

/** Validates a KServe v2 REST inference request body. */
export function parseJsonInferRequest(body: unknown): ParsedJsonInferRequest {
  if (!isRecord(body)) throw new InferRequestError('request body must be a JSON object');
  if (body.id !== undefined && typeof body.id !== 'string') {
    throw new InferRequestError(`'id' must be a string`);
  }
  if (!Array.isArray(body.inputs) || body.inputs.length === 0) {
    throw new InferRequestError(`'inputs' must be a non-empty array`);
  }
  const inputs = body.inputs.map((t) => jsonToTensor(t, 'input'));
  const seen = new Set<string>();
  for (const t of inputs) {
    if (seen.has(t.name)) throw new InferRequestError(`input '${t.name}' appears more than once`);
    seen.add(t.name);
  }
  if (body.outputs !== undefined && !Array.isArray(body.outputs)) {
    throw new InferRequestError(`'outputs' must be an array`);
  }
  const outputs = ((body.outputs as unknown[] | undefined) ?? []).map((o) => {
    if (!isRecord(o) || typeof o.name !== 'string' || o.name === '') {
      throw new InferRequestError(`every requested output needs a non-empty string 'name'`);
    }
    const params = parseParameters(o.parameters, `output '${o.name}'`);
    return Object.keys(params).length ? { name: o.name, parameters: params } : { name: o.name };
  });
  const parsed: ParsedJsonInferRequest = {
    parameters: parseParameters(body.parameters, 'request'),
    inputs,
    outputs,
  };
  if (typeof body.id === 'string') parsed.id = body.id;
  return parsed;
}

/** Builds a KServe v2 REST inference response body. */
export function toJsonInferResponse(result: {
  modelName: string;
  modelVersion?: string;
  id?: string;
  parameters?: Record<string, JsonParameterValue>;
  outputs: readonly Tensor[];
}): JsonInferResponse {
  const body: JsonInferResponse = {
    model_name: result.modelName,
    outputs: result.outputs.map(tensorToJson),
  };
  if (result.modelVersion) body.model_version = result.modelVersion;
  if (result.id) body.id = result.id;
  if (result.parameters && Object.keys(result.parameters).length)
    body.parameters = result.parameters;
  return body;
}
