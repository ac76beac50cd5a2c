import { ModelConfigParseError } from './model-config.errors';
import { parseModelConfig } from './model-config.parser';
import { parameterBlock, pbtxtString } from './model-config-writer';
import { parsePbtxt } from './pbtxt.parser';
import type { SourcePosition, TextMessage, TextValue } from './pbtxt.types';

/**
 * Edits an existing `config.pbtxt` in place of rewriting it: a user's config keeps its
 * comments, layout and the Triton fields the mesh does not model. Only the one string value
 * changes, or one `parameters` entry is appended.
 */

function messagesOf(value: TextValue): TextMessage[] {
  if (value.kind === 'message') return [value];
  if (value.kind === 'list') return value.items.filter((i) => i.kind === 'message');
  return [];
}

function scalarText(message: TextMessage, field: string): string | undefined {
  const found = message.fields.find((f) => f.name === field);
  return found?.value.kind === 'scalar' ? found.value.text : undefined;
}

/** Where the `string_value` literal of parameter `key` starts, when the config has one. */
function parameterValuePosition(root: TextMessage, key: string): SourcePosition | undefined {
  for (const field of root.fields.filter((f) => f.name === 'parameters')) {
    for (const entry of messagesOf(field.value)) {
      if (scalarText(entry, 'key') !== key) continue;
      const value = entry.fields.find((f) => f.name === 'value');
      const literal =
        value && messagesOf(value.value)[0]?.fields.find((f) => f.name === 'string_value');
      if (literal?.value.kind === 'scalar') return literal.value;
    }
  }
  return undefined;
}

/** Replaces the quoted literal starting at `at` (1-based line/column) with `literal`. */
function replaceLiteral(text: string, at: SourcePosition, literal: string): string {
  const lines = text.split('\n');
  const line = lines[at.line - 1] ?? '';
  const start = at.column - 1;
  const quote = line[start];
  let end = start + 1;
  while (end < line.length && line[end] !== quote) end += line[end] === '\\' ? 2 : 1;
  lines[at.line - 1] = `${line.slice(0, start)}${literal}${line.slice(end + 1)}`;
  return lines.join('\n');
}

/**
 * Sets the string parameter `key` to `value` in config text: the existing literal is replaced,
 * or a `parameters { ... }` entry is appended. The result is parsed again and must hold the
 * value. Throws ModelConfigParseError when the text does not parse (before or after).
 */
export function setModelConfigParameter(
  text: string,
  file: string,
  key: string,
  value: string,
): string {
  const at = parameterValuePosition(parsePbtxt(text, file), key);
  let edited: string;
  if (at) {
    edited = replaceLiteral(text, at, pbtxtString(value));
  } else {
    const base = text.length === 0 || text.endsWith('\n') ? text : `${text}\n`;
    edited = `${base}${parameterBlock(key, value).join('\n')}\n`;
  }
  const written = parseModelConfig(edited, file).parameters[key]?.stringValue;
  if (written !== value) {
    throw new ModelConfigParseError(
      file,
      at?.line ?? 1,
      at?.column ?? 1,
      `cannot set parameter '${key}' in place (is its value split over several strings?)`,
    );
  }
  return edited;
}
