import { parseModelConfig } from './model-config.parser';
import { checkModelSignature, type ValueInfo } from './model-signature.check';

const bertInputs: ValueInfo[] = ['input_ids', 'attention_mask', 'token_type_ids'].map((name) => ({
  name,
  type: 'int64',
  shape: [-1, -1],
}));
const logits: ValueInfo[] = [{ name: 'logits', type: 'float32', shape: [-1, 3] }];

const config = (dims: string, maxBatch: number, outDims = '[ 3 ]', dataType = 'TYPE_INT64') =>
  parseModelConfig(
    `name: "m"
platform: "onnxruntime_onnx"
max_batch_size: ${maxBatch}
input [
  { name: "input_ids" data_type: ${dataType} dims: ${dims} },
  { name: "attention_mask" data_type: TYPE_INT64 dims: ${dims} },
  { name: "token_type_ids" data_type: TYPE_INT64 dims: ${dims} }
]
output [ { name: "logits" data_type: TYPE_FP32 dims: ${outDims} } ]`,
    'm/config.pbtxt',
  );

describe('checkModelSignature', () => {
  it('accepts the demo config (dims [-1] plus the implicit batch dimension)', () => {
    expect(checkModelSignature(config('[ -1 ]', 64), bertInputs, logits)).toEqual([]);
  });

  it("rejects Report C's [-1, -1] with max_batch_size 32 against a 2-D model, naming tensor and both shapes", () => {
    const problems = checkModelSignature(config('[ -1, -1 ]', 32), bertInputs, logits);
    expect(problems[0]).toBe(
      "input 'input_ids': config shape [-1,-1,-1] (dims [-1,-1] plus the batch dimension of max_batch_size 32) does not match the model's [-1,-1]",
    );
    expect(problems).toHaveLength(3);
  });

  it('accepts [-1, -1] without batching (max_batch_size 0), the 2-D shape itself', () => {
    expect(checkModelSignature(config('[ -1, -1 ]', 0, '[ -1, 3 ]'), bertInputs, logits)).toEqual(
      [],
    );
  });

  it('rejects a wrong datatype, a fixed dim that differs, and unknown tensor names', () => {
    expect(
      checkModelSignature(config('[ -1 ]', 8, '[ 3 ]', 'TYPE_INT32'), bertInputs, logits)[0],
    ).toBe("input 'input_ids': config data_type TYPE_INT32 but the model's is int64");
    expect(checkModelSignature(config('[ -1 ]', 8, '[ 4 ]'), bertInputs, logits)[0]).toContain(
      "output 'logits': config shape [-1,4]",
    );
    const renamed = bertInputs.map((i) =>
      i.name === 'token_type_ids' ? { ...i, name: 'segment_ids' } : i,
    );
    const problems = checkModelSignature(config('[ -1 ]', 8), renamed, logits);
    expect(problems).toContain(
      "input 'token_type_ids' is not in the model; the model's inputs are 'input_ids', 'attention_mask', 'segment_ids'",
    );
    expect(problems).toContain("the model's input 'segment_ids' is missing from config.pbtxt");
  });
});
