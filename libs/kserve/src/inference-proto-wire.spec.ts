import { loadInferencePackage } from './inference-proto-loader';

// Field numbers and types of the messages the mesh puts on the wire, as
// Triton defines them. Renumbering or retyping one breaks compatibility with
// every Triton client silently, so each is pinned here.
const PINNED: Record<string, string> = {
  'inference.InferParameter':
    'bool_param=1:BOOL int64_param=2:INT64 string_param=3:STRING double_param=4:DOUBLE uint64_param=5:UINT64',
  'inference.InferTensorContents':
    'bool_contents=1:BOOL* int_contents=2:INT32* int64_contents=3:INT64* uint_contents=4:UINT32* ' +
    'uint64_contents=5:UINT64* fp32_contents=6:FLOAT* fp64_contents=7:DOUBLE* bytes_contents=8:BYTES*',
  'inference.ModelInferRequest':
    'model_name=1:STRING model_version=2:STRING id=3:STRING parameters=4:MESSAGE* inputs=5:MESSAGE* ' +
    'outputs=6:MESSAGE* raw_input_contents=7:BYTES*',
  'inference.ModelInferRequest.InferInputTensor':
    'name=1:STRING datatype=2:STRING shape=3:INT64* parameters=4:MESSAGE* contents=5:MESSAGE',
  'inference.ModelInferRequest.InferRequestedOutputTensor': 'name=1:STRING parameters=2:MESSAGE*',
  'inference.ModelInferResponse':
    'model_name=1:STRING model_version=2:STRING id=3:STRING parameters=4:MESSAGE* outputs=5:MESSAGE* ' +
    'raw_output_contents=6:BYTES*',
  'inference.ModelInferResponse.InferOutputTensor':
    'name=1:STRING datatype=2:STRING shape=3:INT64* parameters=4:MESSAGE* contents=5:MESSAGE',
  'inference.ModelStreamInferResponse': 'error_message=1:STRING infer_response=2:MESSAGE',
  'inference.ModelReadyRequest': 'name=1:STRING version=2:STRING',
  'inference.ModelMetadataResponse':
    'name=1:STRING versions=2:STRING* platform=3:STRING inputs=4:MESSAGE* outputs=5:MESSAGE*',
  'inference.RepositoryIndexRequest': 'repository_name=1:STRING ready=2:BOOL',
  'inference.RepositoryIndexResponse.ModelIndex':
    'name=1:STRING version=2:STRING state=3:STRING reason=4:STRING',
  'inference.RepositoryModelLoadRequest':
    'repository_name=1:STRING model_name=2:STRING parameters=3:MESSAGE*',
  'inference.ModelRepositoryParameter':
    'bool_param=1:BOOL int64_param=2:INT64 string_param=3:STRING bytes_param=4:BYTES',
  'inference.StatisticDuration': 'count=1:UINT64 ns=2:UINT64',
  'inference.ModelStatistics':
    'name=1:STRING version=2:STRING last_inference=3:UINT64 inference_count=4:UINT64 execution_count=5:UINT64 ' +
    'inference_stats=6:MESSAGE batch_stats=7:MESSAGE* memory_usage=8:MESSAGE* response_stats=9:MESSAGE*',
  'inference.InferStatistics':
    'success=1:MESSAGE fail=2:MESSAGE queue=3:MESSAGE compute_input=4:MESSAGE compute_infer=5:MESSAGE ' +
    'compute_output=6:MESSAGE cache_hit=7:MESSAGE cache_miss=8:MESSAGE',
  'inference.ModelConfig':
    'name=1:STRING platform=2:STRING version_policy=3:MESSAGE max_batch_size=4:INT32 input=5:MESSAGE* ' +
    'output=6:MESSAGE* instance_group=7:MESSAGE* default_model_filename=8:STRING cc_model_filenames=9:MESSAGE* ' +
    'metric_tags=10:MESSAGE* dynamic_batching=11:MESSAGE optimization=12:MESSAGE sequence_batching=13:MESSAGE ' +
    'parameters=14:MESSAGE* ensemble_scheduling=15:MESSAGE model_warmup=16:MESSAGE* backend=17:STRING ' +
    'model_operations=18:MESSAGE model_transaction_policy=19:MESSAGE batch_input=20:MESSAGE* ' +
    'batch_output=21:MESSAGE* model_repository_agents=23:MESSAGE response_cache=24:MESSAGE',
  'inference.ModelInput':
    'name=1:STRING data_type=2:ENUM format=3:ENUM dims=4:INT64* reshape=5:MESSAGE is_shape_tensor=6:BOOL ' +
    'allow_ragged_batch=7:BOOL optional=8:BOOL',
  'inference.ModelOutput':
    'name=1:STRING data_type=2:ENUM dims=3:INT64* label_filename=4:STRING reshape=5:MESSAGE is_shape_tensor=6:BOOL',
  'inference.ModelDynamicBatching':
    'preferred_batch_size=1:INT32* max_queue_delay_microseconds=2:UINT64 preserve_ordering=3:BOOL ' +
    'priority_levels=4:UINT32 default_priority_level=5:UINT32 default_queue_policy=6:MESSAGE ' +
    'priority_queue_policy=7:MESSAGE*',
  'inference.ModelQueuePolicy':
    'timeout_action=1:ENUM default_timeout_microseconds=2:UINT64 allow_timeout_override=3:BOOL max_queue_size=4:UINT32',
  'inference.ModelInstanceGroup':
    'name=1:STRING count=2:INT32 gpus=3:INT32* kind=4:ENUM profile=5:STRING* rate_limiter=6:MESSAGE ' +
    'passive=7:BOOL secondary_devices=8:MESSAGE* host_policy=9:STRING',
  'inference.ModelParameter': 'string_value=1:STRING',
  'inference.ModelVersionPolicy': 'latest=1:MESSAGE all=2:MESSAGE specific=3:MESSAGE',
};

interface FieldDescriptor {
  name: string;
  number: number;
  type: string;
  label: string;
}

interface MessageDescriptor {
  field: FieldDescriptor[];
  nestedType: (MessageDescriptor & { name: string })[];
}

// Nested messages (e.g. ModelInferRequest.InferInputTensor) live inside their parent's descriptor.
function lookup(typeName: string): MessageDescriptor | undefined {
  const defs = loadInferencePackage().packageDefinition;
  const direct = defs[typeName] as { type?: MessageDescriptor } | undefined;
  if (direct?.type) return direct.type;
  const dot = typeName.lastIndexOf('.');
  if (dot < 0) return undefined;
  return lookup(typeName.slice(0, dot))?.nestedType.find((n) => n.name === typeName.slice(dot + 1));
}

function describe_(typeName: string): string {
  const type = lookup(typeName);
  if (!type) return '(missing)';
  return [...type.field]
    .sort((a, b) => a.number - b.number)
    .map(
      (f) =>
        `${f.name}=${f.number}:${f.type.replace('TYPE_', '')}${f.label === 'LABEL_REPEATED' ? '*' : ''}`,
    )
    .join(' ');
}

describe('inference protocol wire layout (Triton field numbers and types)', () => {
  it.each(Object.entries(PINNED))('%s', (typeName, expected) => {
    const sorted = expected
      .split(' ')
      .sort(
        (a, b) => Number(a.split('=')[1]!.split(':')[0]) - Number(b.split('=')[1]!.split(':')[0]),
      )
      .join(' ');
    expect(describe_(typeName)).toBe(sorted);
  });

  it('keeps the DataType enum values', () => {
    const def = loadInferencePackage().packageDefinition['inference.DataType'] as {
      type: { value: { name: string; number: number }[] };
    };
    expect(Object.fromEntries(def.type.value.map((v) => [v.name, v.number]))).toEqual({
      TYPE_INVALID: 0,
      TYPE_BOOL: 1,
      TYPE_UINT8: 2,
      TYPE_UINT16: 3,
      TYPE_UINT32: 4,
      TYPE_UINT64: 5,
      TYPE_INT8: 6,
      TYPE_INT16: 7,
      TYPE_INT32: 8,
      TYPE_INT64: 9,
      TYPE_FP16: 10,
      TYPE_FP32: 11,
      TYPE_FP64: 12,
      TYPE_STRING: 13,
      TYPE_BF16: 14,
    });
  });
});
