import fc from 'fast-check';
import { binaryJunk, bodyOf, headerText, mostly, objectOf, rarely, wildValue } from './fuzz.values';
import { erase, isObject, jsonOf, preview, type AnyFuzzTarget, type Verdict } from './fuzz.target';
import { hostGrpcTarget } from './host-grpc.fuzz-target';
import {
  INPUTS,
  datatype,
  modelName,
  shape,
  tokenId,
  version,
  type HostFuzzEndpoints,
} from './host.fuzz-values';
import { rawHttp, type RawHttpRequest } from './raw-http.client';

export type { HostFuzzEndpoints };

/** Data that fits `dims` most of the time, else too short, too long, or wild. */
function dataFor(dims: readonly number[]): fc.Arbitrary<unknown> {
  const n = dims.every((d) => d > 0 && d <= 64) ? dims.reduce((a, b) => a * b, 1) : 3;
  return fc.oneof(
    { weight: 8, arbitrary: fc.array(tokenId, { minLength: n, maxLength: n }) },
    { weight: 1, arbitrary: fc.array(tokenId, { maxLength: n + 3 }) },
    { weight: 1, arbitrary: fc.array(wildValue, { maxLength: 4 }) },
    { weight: 1, arbitrary: wildValue },
  );
}

/** One KServe input tensor whose fields are mostly coherent with each other. */
function jsonInput(name: string): fc.Arbitrary<object> {
  return shape.chain((dims) =>
    objectOf({
      name: mostly(
        fc.oneof(
          { weight: 8, arbitrary: fc.constant(name) },
          { weight: 1, arbitrary: fc.constantFrom(...INPUTS) },
        ),
      ),
      datatype: mostly(datatype),
      shape: mostly(fc.constant([...dims])),
      data: mostly(dataFor(dims)),
      parameters: rarely(fc.dictionary(fc.string({ maxLength: 12 }), wildValue, { maxKeys: 2 })),
    }),
  );
}

const kserveJson = objectOf({
  id: fc.option(mostly(fc.string({ maxLength: 20 })), { nil: undefined }),
  inputs: mostly(
    fc.oneof(
      { weight: 8, arbitrary: fc.tuple(...INPUTS.map(jsonInput)) },
      { weight: 1, arbitrary: fc.array(jsonInput('input_ids'), { maxLength: 4 }) },
    ),
  ),
  outputs: fc.option(
    mostly(
      fc.array(
        objectOf({
          name: mostly(fc.constantFrom('logits', 'embedding', 'nope')),
          parameters: fc.option(
            objectOf({
              classification: mostly(fc.integer({ min: -2, max: 5 })),
              binary_data: mostly(fc.boolean()),
            }),
            { nil: undefined },
          ),
        }),
        { maxLength: 2 },
      ),
    ),
    { freq: 2, nil: undefined },
  ),
  parameters: rarely(
    objectOf({
      priority: mostly(fc.integer({ min: -1, max: 4 })),
      timeout: mostly(fc.integer({ min: 0, max: 10_000_000 })),
      binary_data_output: mostly(fc.boolean()),
    }),
  ),
});

/** A request the model accepts: the three inputs, INT64, one coherent [rows, length] shape. */
const validKserveJson = fc
  .record({
    rows: fc.integer({ min: 1, max: 4 }),
    length: fc.integer({ min: 1, max: 32 }),
    seed: fc.nat(),
    classification: fc.option(fc.integer({ min: 1, max: 3 }), { nil: undefined }),
  })
  .map(({ rows, length, seed, classification }) => {
    const ids = Array.from({ length: rows * length }, (_, i) => 1 + ((seed + i * 7919) % 5000));
    const input = (name: string, data: number[]) => ({
      name,
      datatype: 'INT64',
      shape: [rows, length],
      data,
    });
    return {
      inputs: [
        input('input_ids', ids),
        input(
          'attention_mask',
          ids.map(() => 1),
        ),
        input(
          'token_type_ids',
          ids.map(() => 0),
        ),
      ],
      ...(classification === undefined
        ? {}
        : { outputs: [{ name: 'logits', parameters: { classification } }] }),
    };
  });

/** POST /v2/models/{m}[/versions/{v}]/infer with fuzzed JSON (and binary-extension) bodies. */
function hostHttpTarget(ep: HostFuzzEndpoints): AnyFuzzTarget {
  const cases = fc
    .record({
      model: modelName,
      version,
      body: bodyOf(validKserveJson, kserveJson),
      headerLength: rarely(fc.oneof(fc.nat({ max: 400 }).map(String), headerText)),
      tail: rarely(binaryJunk),
      type: fc.option(
        fc.constantFrom('application/json', 'application/octet-stream', 'text/plain'),
        { nil: undefined },
      ),
    })
    .map((c): RawHttpRequest => {
      const m = encodeURIComponent(c.model);
      const path = `/v2/models/${m}${c.version ? `/versions/${encodeURIComponent(c.version)}` : ''}/infer`;
      const headers: Record<string, string> = {};
      if (c.type) headers['content-type'] = c.type;
      if (c.headerLength !== undefined) headers['inference-header-content-length'] = c.headerLength;
      const body = c.tail ? Buffer.concat([c.body, c.tail]) : c.body;
      return { method: 'POST', path, headers, body };
    });
  return erase({
    api: 'host KServe v2 HTTP infer',
    cases,
    describe: (r) => preview({ path: r.path, headers: r.headers, body: r.body?.toString() }),
    send: async (r) => {
      const res = await rawHttp(ep.http, r);
      return hostHttpVerdict(res.status, res.headers, res.body);
    },
  });
}

/** 2xx with outputs (JSON or binary extension), or a 4xx with Triton's `{"error": "..."}`. */
export function hostHttpVerdict(
  status: number,
  headers: Record<string, string>,
  body: Buffer,
): Verdict {
  const outcome = String(status);
  if (status >= 200 && status < 300) {
    const headerLength = headers['inference-header-content-length'];
    const json = jsonOf(headerLength === undefined ? body : body.subarray(0, Number(headerLength)));
    return isObject(json) && Array.isArray(json.outputs)
      ? { outcome }
      : { outcome, problem: 'bad 2xx body' };
  }
  const json = jsonOf(body);
  if (status >= 500) return { outcome, problem: `${status}: ${preview(json ?? body.toString())}` };
  if (!isObject(json) || typeof json.error !== 'string' || json.error === '') {
    return { outcome, problem: `undocumented error shape: ${preview(body.toString())}` };
  }
  return { outcome };
}

/** Both host inference APIs: KServe v2 HTTP infer and gRPC ModelInfer. */
export function hostFuzzTargets(ep: HostFuzzEndpoints): AnyFuzzTarget[] {
  return [hostHttpTarget(ep), hostGrpcTarget(ep)];
}
