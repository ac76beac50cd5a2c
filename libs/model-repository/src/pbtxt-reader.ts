import { ModelConfigParseError } from './model-config.errors';
import {
  describeValue,
  toBool,
  toEnum,
  toInteger,
  type IntKind,
  type ScalarResult,
} from './pbtxt-scalars';
import type { SourcePosition, TextField, TextMessage, TextScalar } from './pbtxt.types';

/** A field present in the text that the schema does not model; kept for diagnostics. */
export interface IgnoredField extends SourcePosition {
  path: string;
}

interface ReaderContext {
  file: string;
  used: Set<TextField>;
  visited: Map<TextMessage, string>;
}

/**
 * Typed, position-aware access to one message of a text-format tree. Every accessor checks the
 * value type and throws ModelConfigParseError at the offending token; fields nobody asks for are
 * tolerated and reported by `ignoredFields()`.
 */
export class MessageReader {
  private constructor(
    readonly node: TextMessage,
    readonly path: string,
    private readonly ctx: ReaderContext,
  ) {
    ctx.visited.set(node, path);
  }

  static root(node: TextMessage, file: string): MessageReader {
    return new MessageReader(node, '', { file, used: new Set(), visited: new Map() });
  }

  get file(): string {
    return this.ctx.file;
  }

  fail(reason: string, at: SourcePosition = this.node): never {
    throw new ModelConfigParseError(this.ctx.file, at.line, at.column, reason);
  }

  /** Position of the field's first occurrence, or of this message if absent. */
  positionOf(name: string): SourcePosition {
    return this.node.fields.find((f) => f.name === name) ?? this.node;
  }

  has(name: string): boolean {
    return this.node.fields.some((f) => f.name === name);
  }

  fieldPath(name: string): string {
    return this.path ? `${this.path}.${name}` : name;
  }

  /** Fails when more than one of `names` is set (a protobuf oneof); returns the one set. */
  oneof(names: readonly string[], oneofName: string): string | undefined {
    const present = names.filter((n) => this.has(n));
    const second = present[1];
    if (second !== undefined) {
      this.fail(
        `only one of ${names.map((n) => `'${n}'`).join(', ')} may be set (${oneofName}), found '${present[0]}' and '${second}'`,
        this.positionOf(second),
      );
    }
    return present[0];
  }

  string(name: string): string | undefined {
    return this.singular(name, (s) =>
      s.type === 'string' ? { ok: true, value: s.text } : { ok: false, reason: 'a string' },
    );
  }

  int(name: string, kind: IntKind): number | undefined {
    return this.singular(name, (s) => toInteger(s, kind));
  }

  bool(name: string): boolean | undefined {
    return this.singular(name, toBool);
  }

  enumValue<T extends string>(
    name: string,
    values: Readonly<Record<T, number>>,
    enumName: string,
  ): T | undefined {
    return this.singular(name, (s) => toEnum(s, values, enumName));
  }

  repeatedInts(name: string, kind: IntKind): number[] {
    return this.repeatedScalars(name, (s) => toInteger(s, kind));
  }

  repeatedStrings(name: string): string[] {
    return this.repeatedScalars(name, (s) =>
      s.type === 'string' ? { ok: true, value: s.text } : { ok: false, reason: 'a string' },
    );
  }

  message(name: string): MessageReader | undefined {
    const field = this.singleField(name);
    if (!field) return undefined;
    if (field.value.kind !== 'message') this.wrongType(name, 'a message', field.value);
    return new MessageReader(field.value, this.fieldPath(name), this.ctx);
  }

  repeatedMessages(name: string): MessageReader[] {
    const readers: MessageReader[] = [];
    for (const field of this.occurrences(name)) {
      const items = field.value.kind === 'list' ? field.value.items : [field.value];
      for (const item of items) {
        if (item.kind !== 'message') this.wrongType(name, 'a message', item);
        const path = `${this.fieldPath(name)}[${readers.length}]`;
        readers.push(new MessageReader(item, path, this.ctx));
      }
    }
    return readers;
  }

  /** Every field of every visited message that no accessor consumed, in source order. */
  ignoredFields(): IgnoredField[] {
    const ignored: IgnoredField[] = [];
    for (const [node, path] of this.ctx.visited) {
      for (const field of node.fields) {
        if (this.ctx.used.has(field)) continue;
        const fieldPath = path ? `${path}.${field.name}` : field.name;
        ignored.push({ path: fieldPath, line: field.line, column: field.column });
      }
    }
    return ignored.sort((a, b) => a.line - b.line || a.column - b.column);
  }

  private occurrences(name: string): TextField[] {
    const fields = this.node.fields.filter((f) => f.name === name);
    for (const field of fields) this.ctx.used.add(field);
    return fields;
  }

  private singleField(name: string): TextField | undefined {
    const [first, second] = this.occurrences(name);
    if (second) this.fail(`field '${this.fieldPath(name)}' is set more than once`, second);
    return first;
  }

  private singular<T>(name: string, convert: (s: TextScalar) => ScalarResult<T>): T | undefined {
    const field = this.singleField(name);
    if (!field) return undefined;
    if (field.value.kind !== 'scalar') {
      const hint = field.value.kind === 'list' ? ' (the field is not repeated)' : '';
      this.wrongType(name, `a single value${hint}`, field.value);
    }
    return this.convert(name, field.value, convert);
  }

  private repeatedScalars<T>(name: string, convert: (s: TextScalar) => ScalarResult<T>): T[] {
    const values: T[] = [];
    for (const field of this.occurrences(name)) {
      const items = field.value.kind === 'list' ? field.value.items : [field.value];
      for (const item of items) {
        if (item.kind !== 'scalar') this.wrongType(name, 'a scalar value', item);
        values.push(this.convert(name, item, convert));
      }
    }
    return values;
  }

  private convert<T>(name: string, s: TextScalar, convert: (s: TextScalar) => ScalarResult<T>): T {
    const result = convert(s);
    if (!result.ok) this.wrongType(name, result.reason, s);
    return result.value;
  }

  private wrongType(name: string, expected: string, value: TextField['value']): never {
    const found = describeValue(value);
    return this.fail(
      `expected ${expected} for '${this.fieldPath(name)}' but found ${found}`,
      value,
    );
  }
}
