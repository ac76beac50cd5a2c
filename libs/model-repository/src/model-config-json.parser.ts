import { ModelConfigJsonError, ModelConfigParseError } from './model-config.errors';
import { modelConfigFromTree, type ParsedModelConfig } from './model-config.parser';
import type { TextField, TextList, TextMessage, TextScalar } from './pbtxt.types';

/** map<...> fields of ModelConfig: a JSON object whose keys are data, not field names. */
const MAP_FIELDS = new Set(['parameters', 'priority_queue_policy', 'inputs']);

export interface ParsedJsonModelConfig extends ParsedModelConfig {
  /** The top-level ModelConfig fields the JSON sets (proto names, snake_case). */
  fieldsSet: string[];
}

const AT = { line: 0, column: 0 };

/** Protobuf's JSON mapping accepts lowerCamelCase and the proto (snake_case) field names. */
const protoName = (key: string): string => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function scalar(value: string | number | boolean, path: string): TextScalar {
  if (typeof value === 'string')
    return { kind: 'scalar', type: 'string', text: value, fromJson: true, ...AT };
  if (typeof value === 'boolean')
    return { kind: 'scalar', type: 'identifier', text: String(value), ...AT };
  if (!Number.isFinite(value)) throw new ModelConfigJsonError(`'${path}' is not a finite number`);
  return { kind: 'scalar', type: 'number', text: String(value), ...AT };
}

function value(v: unknown, path: string): TextScalar | TextMessage {
  if (isObject(v)) return message(v, path);
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean')
    return scalar(v, path);
  throw new ModelConfigJsonError(`'${path}' has an unsupported JSON value ${JSON.stringify(v)}`);
}

function mapEntries(name: string, v: Record<string, unknown>, path: string): TextField[] {
  return Object.entries(v).map(([key, item]) => ({
    name,
    value: {
      kind: 'message',
      fields: [
        { name: 'key', value: scalar(key, `${path}.key`), ...AT },
        { name: 'value', value: value(item, `${path}[${key}]`), ...AT },
      ],
      ...AT,
    },
    ...AT,
  }));
}

function message(obj: Record<string, unknown>, path: string): TextMessage {
  const fields: TextField[] = [];
  for (const [key, v] of Object.entries(obj)) {
    if (v === null) continue;
    const name = protoName(key);
    const at = path ? `${path}.${name}` : name;
    if (MAP_FIELDS.has(name) && isObject(v)) {
      fields.push(...mapEntries(name, v, at));
    } else if (Array.isArray(v)) {
      const list: TextList = {
        kind: 'list',
        items: v.map((item, i) => value(item, `${at}[${i}]`)),
        ...AT,
      };
      fields.push({ name, value: list, ...AT });
    } else {
      fields.push({ name, value: value(v, at), ...AT });
    }
  }
  return { kind: 'message', fields, ...AT };
}

/**
 * Parses a JSON representation of Triton's ModelConfig message (what a repository load's
 * `config` parameter carries) with the same rules as `config.pbtxt`. Errors name the field.
 */
export function parseModelConfigJson(text: string, label: string): ParsedJsonModelConfig {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err: unknown) {
    throw new ModelConfigJsonError(`${label} is not valid JSON: ${(err as Error).message}`);
  }
  if (!isObject(json)) throw new ModelConfigJsonError(`${label} must be a JSON object`);
  try {
    const tree = message(json, '');
    const parsed = modelConfigFromTree(tree, label);
    return { ...parsed, fieldsSet: [...new Set(tree.fields.map((f) => f.name))] };
  } catch (err: unknown) {
    if (err instanceof ModelConfigParseError)
      throw new ModelConfigJsonError(`${label}: ${err.reason}`);
    if (err instanceof ModelConfigJsonError)
      throw new ModelConfigJsonError(`${label}: ${err.message}`);
    throw err;
  }
}
