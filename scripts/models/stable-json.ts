/**
 * Pretty JSON (2-space indent, like JSON.stringify(v, null, 2)) whose object
 * key order is exactly the insertion order. A `Map` is written as an object:
 * plain objects would move integer-like keys ("0", "7", "100") to the front,
 * which would scramble a vocabulary written in id order.
 */

export type JsonValue =
  | null
  | boolean
  | number
  | string
  | readonly JsonValue[]
  | ReadonlyMap<string, JsonValue>
  | { readonly [key: string]: JsonValue };

type JsonObject = ReadonlyMap<string, JsonValue> | { readonly [key: string]: JsonValue };

function entriesOf(value: JsonObject): Array<[string, JsonValue]> {
  if (value instanceof Map) return [...(value as ReadonlyMap<string, JsonValue>).entries()];
  const object = value as { readonly [key: string]: JsonValue };
  return Object.keys(object).map((key) => [key, object[key] as JsonValue]);
}

function write(value: JsonValue, indent: string): string {
  if (value === null || typeof value !== 'object') {
    if (typeof value === 'number' && !Number.isFinite(value)) throw new Error(`not JSON: ${value}`);
    return JSON.stringify(value);
  }
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    const items = (value as readonly JsonValue[]).map((item) => `${inner}${write(item, inner)}`);
    return items.length === 0 ? '[]' : `[\n${items.join(',\n')}\n${indent}]`;
  }
  const members = entriesOf(value as JsonObject).map(
    ([key, item]) => `${inner}${JSON.stringify(key)}: ${write(item, inner)}`,
  );
  return members.length === 0 ? '{}' : `{\n${members.join(',\n')}\n${indent}}`;
}

/** Serializes `value` with a trailing newline. */
export function stableJson(value: JsonValue): string {
  return `${write(value, '')}\n`;
}
