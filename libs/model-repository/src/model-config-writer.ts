import type {
  DynamicBatching,
  ModelConfig,
  ModelInput,
  ModelOutput,
  ModelWarmup,
  OptimizationPolicy,
  QueuePolicy,
  VersionPolicy,
} from './model-config.types';

/**
 * Writes a typed ModelConfig as `config.pbtxt` text in the repository's layout (one field per
 * line, tensors and instance groups as `[ { ... } ]` lists, parameters as map entries), so
 * `parseModelConfig(writeModelConfig(c))` equals `c`. Fields at Triton's defaults that the
 * parser fills in (false flags, zero delays, an empty backend) are left out; everything the
 * parser keeps as "present only when set" is written when present.
 */

type Line = string;

const INDENT = '  ';

/** Protobuf text-format string literal: escapes quotes, backslashes and control characters. */
export function pbtxtString(value: string): string {
  let out = '"';
  for (const ch of value) {
    const code = ch.codePointAt(0) ?? 0;
    if (ch === '"') out += '\\"';
    else if (ch === '\\') out += '\\\\';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\t') out += '\\t';
    else if (code < 0x20 || code === 0x7f) out += `\\${code.toString(8).padStart(3, '0')}`;
    else out += ch;
  }
  return `${out}"`;
}

const indent = (lines: Line[]): Line[] => lines.map((l) => `${INDENT}${l}`);
const ints = (values: number[]): string => `[ ${values.join(', ')} ]`;

function block(name: string, body: Line[]): Line[] {
  return [`${name} {`, ...indent(body), '}'];
}

/** `name [ { ... }, { ... } ]`, the layout Triton's documentation uses for repeated messages. */
function list(name: string, items: Line[][]): Line[] {
  const rendered = items.map((body, i) => [
    '{',
    ...indent(body),
    i < items.length - 1 ? '},' : '}',
  ]);
  return [`${name} [`, ...indent(rendered.flat()), ']'];
}

function flag(name: string, value: boolean | undefined): Line[] {
  return value === undefined ? [] : [`${name}: ${value}`];
}

function input(t: ModelInput): Line[] {
  return [
    `name: ${pbtxtString(t.name)}`,
    `data_type: ${t.dataType}`,
    ...(t.format !== undefined ? [`format: ${t.format}`] : []),
    `dims: ${ints(t.dims)}`,
    ...(t.reshape ? [`reshape: { shape: ${ints(t.reshape.shape)} }`] : []),
    ...flag('is_shape_tensor', t.isShapeTensor),
    ...flag('allow_ragged_batch', t.allowRaggedBatch),
    ...flag('optional', t.optional),
  ];
}

function output(t: ModelOutput): Line[] {
  return [
    `name: ${pbtxtString(t.name)}`,
    `data_type: ${t.dataType}`,
    `dims: ${ints(t.dims)}`,
    ...(t.reshape ? [`reshape: { shape: ${ints(t.reshape.shape)} }`] : []),
    ...(t.labelFilename !== undefined ? [`label_filename: ${pbtxtString(t.labelFilename)}`] : []),
    ...flag('is_shape_tensor', t.isShapeTensor),
  ];
}

function queuePolicy(p: QueuePolicy): Line[] {
  return [
    `timeout_action: ${p.timeoutAction}`,
    `default_timeout_microseconds: ${p.defaultTimeoutMicroseconds}`,
    `allow_timeout_override: ${p.allowTimeoutOverride}`,
    `max_queue_size: ${p.maxQueueSize}`,
  ];
}

function dynamicBatching(b: DynamicBatching): Line[] {
  const body: Line[] = [];
  if (b.preferredBatchSize.length > 0) {
    body.push(`preferred_batch_size: ${ints(b.preferredBatchSize)}`);
  }
  if (b.maxQueueDelayMicroseconds > 0) {
    body.push(`max_queue_delay_microseconds: ${b.maxQueueDelayMicroseconds}`);
  }
  if (b.preserveOrdering) body.push('preserve_ordering: true');
  if (b.priorityLevels > 0) body.push(`priority_levels: ${b.priorityLevels}`);
  if (b.defaultPriorityLevel > 0) body.push(`default_priority_level: ${b.defaultPriorityLevel}`);
  if (b.defaultQueuePolicy)
    body.push(...block('default_queue_policy', queuePolicy(b.defaultQueuePolicy)));
  for (const [level, policy] of Object.entries(b.priorityQueuePolicy ?? {})) {
    body.push(
      ...block('priority_queue_policy', [`key: ${level}`, ...block('value', queuePolicy(policy))]),
    );
  }
  return block('dynamic_batching', body);
}

function versionPolicy(p: VersionPolicy): Line {
  if ('all' in p) return 'version_policy: { all { } }';
  if ('specific' in p)
    return `version_policy: { specific { versions: ${ints(p.specific.versions)} } }`;
  return `version_policy: { latest { num_versions: ${p.latest.numVersions} } }`;
}

function stringMap(name: string, map: Record<string, string>): Line[] {
  return Object.entries(map).flatMap(([key, value]) =>
    block(name, [`key: ${pbtxtString(key)}`, `value: ${pbtxtString(value)}`]),
  );
}

function optimization(o: OptimizationPolicy): Line[] {
  const body: Line[] = [];
  if (o.graph) body.push(`graph: { level: ${o.graph.level} }`);
  if (o.priority !== undefined) body.push(`priority: ${o.priority}`);
  const acc = o.executionAccelerators;
  if (acc) {
    const accelerators = (name: string, items: typeof acc.gpuExecutionAccelerator) =>
      items.flatMap((a) =>
        block(name, [`name: ${pbtxtString(a.name)}`, ...stringMap('parameters', a.parameters)]),
      );
    body.push(
      ...block('execution_accelerators', [
        ...accelerators('gpu_execution_accelerator', acc.gpuExecutionAccelerator),
        ...accelerators('cpu_execution_accelerator', acc.cpuExecutionAccelerator),
      ]),
    );
  }
  if (o.inputPinnedMemory)
    body.push(`input_pinned_memory: { enable: ${o.inputPinnedMemory.enable} }`);
  if (o.outputPinnedMemory) {
    body.push(`output_pinned_memory: { enable: ${o.outputPinnedMemory.enable} }`);
  }
  if (o.gatherKernelBufferThreshold !== undefined) {
    body.push(`gather_kernel_buffer_threshold: ${o.gatherKernelBufferThreshold}`);
  }
  body.push(...flag('eager_batching', o.eagerBatching));
  return block('optimization', body);
}

function warmup(w: ModelWarmup): Line[] {
  const inputs = Object.entries(w.inputs).flatMap(([key, i]) =>
    block('inputs', [
      `key: ${pbtxtString(key)}`,
      ...block('value', [
        `data_type: ${i.dataType}`,
        `dims: ${ints(i.dims)}`,
        ...flag('zero_data', i.zeroData),
        ...flag('random_data', i.randomData),
        ...(i.inputDataFile !== undefined
          ? [`input_data_file: ${pbtxtString(i.inputDataFile)}`]
          : []),
      ]),
    ]),
  );
  return [
    `name: ${pbtxtString(w.name)}`,
    `batch_size: ${w.batchSize}`,
    ...inputs,
    `count: ${w.count}`,
  ];
}

/** The config as `config.pbtxt` text, ending with a newline. */
export function writeModelConfig(config: ModelConfig): string {
  const lines: Line[] = [`name: ${pbtxtString(config.name)}`];
  if (config.platform) lines.push(`platform: ${pbtxtString(config.platform)}`);
  if (config.backend) lines.push(`backend: ${pbtxtString(config.backend)}`);
  lines.push(`max_batch_size: ${config.maxBatchSize}`);
  if (config.input.length > 0) lines.push(...list('input', config.input.map(input)));
  if (config.output.length > 0) lines.push(...list('output', config.output.map(output)));
  if (config.dynamicBatching) lines.push(...dynamicBatching(config.dynamicBatching));
  if (config.instanceGroup.length > 0) {
    lines.push(
      ...list(
        'instance_group',
        config.instanceGroup.map((g) => [
          ...(g.name !== undefined ? [`name: ${pbtxtString(g.name)}`] : []),
          // A count the author left out stays out: the embedded host chooses one then.
          ...(g.countUnset ? [] : [`count: ${g.count}`]),
          `kind: ${g.kind}`,
          ...(g.gpus !== undefined ? [`gpus: ${ints(g.gpus)}`] : []),
        ]),
      ),
    );
  }
  if (config.versionPolicy) lines.push(versionPolicy(config.versionPolicy));
  if (config.optimization) lines.push(...optimization(config.optimization));
  for (const w of config.modelWarmup ?? []) lines.push(...block('model_warmup', warmup(w)));
  if (config.defaultModelFilename !== undefined) {
    lines.push(`default_model_filename: ${pbtxtString(config.defaultModelFilename)}`);
  }
  for (const [key, p] of Object.entries(config.parameters)) {
    lines.push(...parameterBlock(key, p.stringValue));
  }
  return `${lines.join('\n')}\n`;
}

/** One `parameters { key value { string_value } }` entry, in the repository's layout. */
export function parameterBlock(key: string, value: string): Line[] {
  return [
    'parameters {',
    `${INDENT}key: ${pbtxtString(key)}`,
    `${INDENT}value: { string_value: ${pbtxtString(value)} }`,
    '}',
  ];
}
