import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import fc from 'fast-check';
import { join } from 'node:path';
import { binaryJunk, rarely } from './fuzz.values';
import { erase, preview, type AnyFuzzTarget } from './fuzz.target';
import { grpcVerdict, rawUnary, wireJunk } from './grpc-raw.call';
import {
  INPUTS,
  MODELS,
  datatype,
  modelName,
  shape,
  version,
  type HostFuzzEndpoints,
} from './host.fuzz-values';

const ROOT = join(__dirname, '..', '..', '..');

function loadInference(): grpc.ServiceDefinition {
  const dir = join(ROOT, 'proto');
  const def = protoLoader.loadSync(['inference/grpc_service.proto'], {
    keepCase: true,
    longs: String,
    enums: String,
    defaults: true,
    oneofs: true,
    includeDirs: [dir, join(dir, 'inference')],
  });
  return def['inference.GRPCInferenceService'] as grpc.ServiceDefinition;
}

const int64 = fc.oneof(
  { weight: 8, arbitrary: fc.integer({ min: 0, max: 200 }).map(String) },
  { weight: 1, arbitrary: fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map(String) },
);
const inferParameter = fc.oneof(
  fc.record({ int64_param: int64 }),
  fc.record({ string_param: fc.string({ maxLength: 10 }) }),
  fc.record({ bool_param: fc.boolean() }),
  fc.record({ double_param: fc.double({ noNaN: true }) }),
);

/** One ModelInferRequest input: shape and contents mostly agree, raw or typed contents. */
const grpcInput = (name: string) =>
  shape.chain((dims) => {
    const n = dims.every((d) => d > 0 && d <= 64) ? dims.reduce((a, b) => a * b, 1) : 2;
    return fc.record(
      {
        name: fc.oneof(
          { weight: 8, arbitrary: fc.constant(name) },
          { weight: 1, arbitrary: fc.string({ maxLength: 12 }) },
        ),
        datatype,
        shape: fc.oneof(
          { weight: 8, arbitrary: fc.constant(dims.map(String)) },
          { weight: 1, arbitrary: fc.array(int64, { maxLength: 3 }) },
        ),
        contents: fc.option(
          fc.oneof(
            fc.record({ int64_contents: fc.array(int64, { minLength: n, maxLength: n }) }),
            fc.record({ int_contents: fc.array(fc.integer(), { maxLength: n + 2 }) }),
            fc.record({ fp32_contents: fc.array(fc.float({ noNaN: true }), { maxLength: n }) }),
            fc.record({ bytes_contents: fc.array(binaryJunk, { maxLength: 3 }) }),
          ),
          { freq: 2, nil: undefined },
        ),
        parameters: rarely(
          fc.dictionary(fc.string({ maxLength: 8 }), inferParameter, { maxKeys: 2 }),
        ),
      },
      { requiredKeys: ['name', 'datatype', 'shape'] },
    );
  });

/** A raw tensor per input: often exactly the right byte count, sometimes off. */
const rawContents = fc.array(
  fc.oneof(
    fc
      .array(fc.bigInt({ min: 0n, max: 200n }), { minLength: 1, maxLength: 48 })
      .map((ids) => Buffer.from(BigInt64Array.from(ids).buffer)),
    binaryJunk,
  ),
  { maxLength: 3 },
);

const modelInferRequest = fc.record(
  {
    model_name: modelName,
    model_version: version,
    id: fc.string({ maxLength: 16 }),
    inputs: fc.oneof(
      { weight: 6, arbitrary: fc.tuple(...INPUTS.map(grpcInput)) },
      { weight: 1, arbitrary: fc.array(grpcInput('input_ids'), { maxLength: 3 }) },
    ),
    outputs: fc.array(
      fc.record({
        name: fc.constantFrom('logits', 'embedding', 'x'),
        parameters: fc.dictionary(
          fc.constantFrom('classification', 'binary_data'),
          inferParameter,
          { maxKeys: 1 },
        ),
      }),
      { maxLength: 2 },
    ),
    parameters: fc.dictionary(fc.constantFrom('priority', 'timeout', 'x'), inferParameter, {
      maxKeys: 2,
    }),
    raw_input_contents: fc.option(rawContents, { nil: undefined }),
  },
  { requiredKeys: ['model_name', 'inputs'] },
);

/** A ModelInferRequest the model accepts, with typed or raw contents. */
const validModelInfer = fc
  .record({
    model: fc.constantFrom(...MODELS),
    rows: fc.integer({ min: 1, max: 4 }),
    length: fc.integer({ min: 1, max: 32 }),
    seed: fc.nat(),
    raw: fc.boolean(),
  })
  .map(({ model, rows, length, seed, raw }) => {
    const ids = Array.from({ length: rows * length }, (_, i) => 1 + ((seed + i * 7919) % 5000));
    const values = [ids, ids.map(() => 1), ids.map(() => 0)];
    const shape = [String(rows), String(length)];
    return {
      model_name: model,
      inputs: INPUTS.map((name, k) => ({
        name,
        datatype: 'INT64',
        shape,
        ...(raw ? {} : { contents: { int64_contents: values[k]!.map(String) } }),
      })),
      ...(raw
        ? {
            raw_input_contents: values.map((v) =>
              Buffer.from(BigInt64Array.from(v.map(BigInt)).buffer),
            ),
          }
        : {}),
    };
  });

/** inference.GRPCInferenceService/ModelInfer with fuzzed messages or raw bytes. */
export function hostGrpcTarget(ep: HostFuzzEndpoints): AnyFuzzTarget {
  const m = loadInference().ModelInfer!;
  const cases = fc.oneof(
    {
      weight: 6,
      arbitrary: validModelInfer.map((msg) => ({ msg, bytes: m.requestSerialize(msg) })),
    },
    {
      weight: 6,
      arbitrary: modelInferRequest.map((msg) => ({ msg, bytes: m.requestSerialize(msg) })),
    },
    {
      weight: 1,
      arbitrary: fc.oneof(wireJunk, binaryJunk).map((bytes) => ({ msg: undefined, bytes })),
    },
  );
  return erase({
    api: 'host gRPC inference.GRPCInferenceService/ModelInfer',
    cases,
    describe: (c) => preview(c.msg ?? c.bytes),
    send: async (c) => grpcVerdict(await rawUnary(ep.grpc, m.path, c.bytes, new grpc.Metadata())),
  });
}
