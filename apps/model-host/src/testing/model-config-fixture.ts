import { parseModelConfig, type ModelConfig } from '@mesh/model-repository';

/**
 * A minimal ONNX classifier config (`m`, one INT64 input, 3 logits) with `extra` pbtxt appended:
 * the specs that read one section of a config write only that section.
 */
export function classifierConfig(extra: string, maxBatchSize = 32): ModelConfig {
  return parseModelConfig(
    `name: "m"
platform: "onnxruntime_onnx"
max_batch_size: ${maxBatchSize}
input [ { name: "input_ids" data_type: TYPE_INT64 dims: [ -1 ] } ]
output [ { name: "logits" data_type: TYPE_FP32 dims: [ 3 ] } ]
${extra}`,
    'm/config.pbtxt',
  );
}
