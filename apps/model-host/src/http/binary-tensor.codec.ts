import { jsonToTensor, tensorToJson, type JsonParameterValue } from '@mesh/kserve';
import type { HostTensor, InferResponse, OutputTensor } from '../core/inference.types';
import { InvalidInferenceError } from '../core/model-host.errors';
import { fixedDatatype, toCodecTensor, toHostTensor } from '../core/tensor-edge.codec';

/** Triton's binary tensor data extension: the length of the JSON part of a body. */
export const HEADER_LENGTH = 'inference-header-content-length';

type Params = Record<string, JsonParameterValue>;

/** An HTTP inference request after decoding, before it meets the model. */
export interface HttpInferRequest {
  id: string;
  inputs: HostTensor[];
  outputs: string[];
  classification: Record<string, number>;
  priority: number;
  timeoutUs: number;
  /** Whether the named output goes back as binary data. */
  binaryOutput(name: string): boolean;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const SHARED_MEMORY = /^shared_memory_/;

/**
 * Splits a body by Inference-Header-Content-Length: the JSON header and the binary tail.
 * Without the header the whole body is JSON; 0 means there is no JSON (a raw binary request).
 */
export function splitInferBody(
  body: Buffer | undefined,
  headerLength: string | undefined,
): { header: Buffer | undefined; binary: Buffer } {
  const buf = body ?? Buffer.alloc(0);
  if (headerLength === undefined) return { header: buf, binary: Buffer.alloc(0) };
  if (!/^\d+$/.test(headerLength.trim())) {
    throw new InvalidInferenceError(
      `Inference-Header-Content-Length must be a non-negative integer (got '${headerLength}')`,
    );
  }
  const n = Number(headerLength.trim());
  if (n > buf.length) {
    throw new InvalidInferenceError(
      `Inference-Header-Content-Length ${n} is larger than the body (${buf.length} bytes)`,
    );
  }
  if (n === 0) return { header: undefined, binary: buf };
  return { header: buf.subarray(0, n), binary: buf.subarray(n) };
}

/** Parses a JSON object body (empty = `{}` when `emptyOk`). */
export function parseJsonObject(buf: Buffer | undefined, emptyOk = false): Record<string, unknown> {
  const text = buf?.toString('utf8') ?? '';
  if (text.trim() === '') {
    if (emptyOk) return {};
    throw new InvalidInferenceError('the request body is empty; a JSON object is expected');
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err: unknown) {
    throw new InvalidInferenceError(
      `the request body is not valid JSON: ${(err as Error).message}`,
    );
  }
  if (!isObject(json)) throw new InvalidInferenceError('the request body must be a JSON object');
  return json;
}

function params(raw: unknown, where: string): Params {
  if (raw === undefined) return {};
  if (!isObject(raw)) throw new InvalidInferenceError(`${where}: 'parameters' must be an object`);
  for (const [k, v] of Object.entries(raw)) {
    if (typeof v !== 'boolean' && typeof v !== 'number' && typeof v !== 'string') {
      throw new InvalidInferenceError(
        `${where}: parameter '${k}' must be a boolean, number or string`,
      );
    }
  }
  return raw as Params;
}

function intParam(p: Params, key: string, where: string, min = 0): number | undefined {
  const v = p[key];
  if (v === undefined) return undefined;
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < min) {
    throw new InvalidInferenceError(
      `${where}: parameter '${key}' must be an integer >= ${min} (got ${JSON.stringify(v)})`,
    );
  }
  return v;
}

function boolParam(p: Params, key: string, where: string): boolean | undefined {
  const v = p[key];
  if (v !== undefined && typeof v !== 'boolean') {
    throw new InvalidInferenceError(`${where}: parameter '${key}' must be true or false`);
  }
  return v;
}

function refuseUnknown(p: Params, known: string[], where: string): void {
  for (const key of Object.keys(p)) {
    if (known.includes(key)) continue;
    if (SHARED_MEMORY.test(key)) {
      throw new InvalidInferenceError(
        `${where}: parameter '${key}': shared memory is not supported by the embedded host`,
      );
    }
    throw new InvalidInferenceError(
      `${where}: unsupported parameter '${key}' (the host takes ${known.map((k) => `'${k}'`).join(', ')})`,
    );
  }
}

/** Reads the inputs; those with `binary_data_size` take their bytes from the binary tail, in order. */
function decodeInputs(raw: unknown, binary: Buffer): HostTensor[] {
  if (!Array.isArray(raw) || raw.length === 0) {
    throw new InvalidInferenceError(`'inputs' must be a non-empty array`);
  }
  let offset = 0;
  const inputs = raw.map((t: unknown): HostTensor => {
    const name = isObject(t) && typeof t.name === 'string' ? t.name : '';
    if (!isObject(t) || name === '') {
      throw new InvalidInferenceError(`every input needs a non-empty string 'name'`);
    }
    const where = `input '${name}'`;
    const p = params(t.parameters, where);
    refuseUnknown(p, ['binary_data_size'], where);
    const size = intParam(p, 'binary_data_size', where);
    if (size === undefined) return toHostTensor(jsonToTensor({ ...t, parameters: undefined }));
    if (t.data !== undefined) {
      throw new InvalidInferenceError(
        `${where}: give either 'data' or 'binary_data_size', not both`,
      );
    }
    const shape = t.shape;
    if (!Array.isArray(shape) || !shape.every((d) => typeof d === 'number')) {
      throw new InvalidInferenceError(`${where}: 'shape' must be an array of integers`);
    }
    if (offset + size > binary.length) {
      throw new InvalidInferenceError(
        `${where}: binary_data_size ${size} runs past the end of the binary data (${binary.length - offset} bytes left)`,
      );
    }
    const data = binary.subarray(offset, offset + size);
    offset += size;
    return {
      name,
      datatype: fixedDatatype(name, String(t.datatype)),
      shape,
      data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength),
    };
  });
  if (offset !== binary.length) {
    throw new InvalidInferenceError(
      `the body carries ${binary.length} bytes of binary data after the JSON header, but the inputs' binary_data_size add up to ${offset}`,
    );
  }
  return inputs;
}

/** A KServe v2 JSON inference request with Triton's binary data and classification parameters. */
export function decodeHttpInferRequest(
  json: Record<string, unknown>,
  binary: Buffer,
): HttpInferRequest {
  if (json.id !== undefined && typeof json.id !== 'string') {
    throw new InvalidInferenceError(`'id' must be a string`);
  }
  const p = params(json.parameters, 'request');
  for (const key of ['sequence_id', 'sequence_start', 'sequence_end']) {
    if (p[key] !== undefined) {
      throw new InvalidInferenceError(
        `request: parameter '${key}': sequence batching is not supported by the embedded host`,
      );
    }
  }
  const allBinary = boolParam(p, 'binary_data_output', 'request') ?? false;
  const inputs = decodeInputs(json.inputs, binary);
  if (json.outputs !== undefined && !Array.isArray(json.outputs)) {
    throw new InvalidInferenceError(`'outputs' must be an array`);
  }
  const binaryOf = new Map<string, boolean>();
  const classification: Record<string, number> = {};
  const outputs = ((json.outputs as unknown[] | undefined) ?? []).map((o) => {
    if (!isObject(o) || typeof o.name !== 'string' || o.name === '') {
      throw new InvalidInferenceError(`every requested output needs a non-empty string 'name'`);
    }
    const where = `output '${o.name}'`;
    const op = params(o.parameters, where);
    refuseUnknown(op, ['binary_data', 'classification'], where);
    const bin = boolParam(op, 'binary_data', where);
    if (bin !== undefined) binaryOf.set(o.name, bin);
    const count = intParam(op, 'classification', where, 1);
    if (count !== undefined) classification[o.name] = count;
    return o.name;
  });
  return {
    id: typeof json.id === 'string' ? json.id : '',
    inputs,
    outputs,
    classification,
    priority: intParam(p, 'priority', 'request') ?? 0,
    timeoutUs: intParam(p, 'timeout', 'request') ?? 0,
    binaryOutput: (name) => binaryOf.get(name) ?? allBinary,
  };
}

/**
 * The response: JSON alone, or (when any output goes back as binary) the JSON header followed
 * by each binary output's bytes in output order; `headerLength` is then the JSON's length.
 */
export function encodeHttpInferResponse(
  res: InferResponse,
  binary: (name: string) => boolean,
): { json: Record<string, unknown> } | { body: Buffer; headerLength: number } {
  const tails: Buffer[] = [];
  const outputs = res.outputs.map((o: OutputTensor) => {
    if (!binary(o.name)) return tensorToJson(toCodecTensor(o));
    tails.push(Buffer.from(o.data.buffer, o.data.byteOffset, o.data.byteLength));
    return {
      name: o.name,
      datatype: o.datatype,
      shape: o.shape,
      parameters: { binary_data_size: o.data.byteLength },
    };
  });
  const json: Record<string, unknown> = { model_name: res.model, model_version: res.version };
  if (res.id) json.id = res.id;
  json.outputs = outputs;
  if (tails.length === 0) return { json };
  const header = Buffer.from(JSON.stringify(json), 'utf8');
  return { body: Buffer.concat([header, ...tails]), headerLength: header.length };
}
