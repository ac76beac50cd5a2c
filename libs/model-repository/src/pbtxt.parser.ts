import { ModelConfigParseError } from './model-config.errors';
import { PbtxtLexer } from './pbtxt-lexer';
import type {
  SourcePosition,
  TextField,
  TextList,
  TextMessage,
  TextScalar,
  Token,
} from './pbtxt.types';

const CLOSER: Record<string, string> = { '{': '}', '<': '>' };

/**
 * Parses protobuf text format (the syntax of Triton's `config.pbtxt`) into a schema-free tree.
 * Types are checked later, against the ModelConfig schema, so one pass reports syntax errors
 * and the next reports wrong value types, both with positions.
 */
export function parsePbtxt(text: string, file: string): TextMessage {
  return new PbtxtParser(new PbtxtLexer(text, file).tokenize(), file).parseDocument();
}

function describe(token: Token): string {
  if (token.type === 'eof') return 'end of file';
  if (token.type === 'string') return JSON.stringify(token.text);
  return `'${token.text}'`;
}

class PbtxtParser {
  private index = 0;

  constructor(
    private readonly tokens: Token[],
    private readonly file: string,
  ) {}

  parseDocument(): TextMessage {
    const first = this.peek();
    const fields = this.parseFields(undefined);
    return { kind: 'message', fields, line: first.line, column: first.column };
  }

  private peek(offset = 0): Token {
    const token = this.tokens[Math.min(this.index + offset, this.tokens.length - 1)];
    if (!token) throw new Error('token stream is empty');
    return token;
  }

  private take(): Token {
    const token = this.peek();
    if (this.index < this.tokens.length - 1) this.index++;
    return token;
  }

  private is(text: string): boolean {
    const token = this.peek();
    return token.type === 'punct' && token.text === text;
  }

  private fail(reason: string, at: SourcePosition = this.peek()): never {
    throw new ModelConfigParseError(this.file, at.line, at.column, reason);
  }

  private expect(text: string): Token {
    if (!this.is(text)) this.fail(`expected '${text}' but found ${describe(this.peek())}`);
    return this.take();
  }

  /** Fields until `closer` (or end of file at top level), with optional `,`/`;` separators. */
  private parseFields(closer: string | undefined): TextField[] {
    const fields: TextField[] = [];
    for (;;) {
      const token = this.peek();
      if (closer === undefined && token.type === 'eof') return fields;
      if (closer !== undefined && this.is(closer)) return fields;
      if (this.is('[')) this.fail("extension fields ('[name]') are not supported");
      if (token.type !== 'identifier') {
        const wanted = closer === undefined ? 'a field name' : `'${closer}'`;
        this.fail(`expected ${wanted} but found ${describe(token)}`);
      }
      fields.push(this.parseField());
      if (this.is(',') || this.is(';')) this.take();
    }
  }

  private parseField(): TextField {
    const nameToken = this.take();
    const at = { line: nameToken.line, column: nameToken.column };
    const name = nameToken.text;
    if (this.is(':')) {
      this.take();
      return { name, ...at, value: this.parseValue() };
    }
    // Without ':' only a message or a list of messages may follow, as in protobuf.
    if (this.is('{') || this.is('<')) return { name, ...at, value: this.parseMessage() };
    if (this.is('[')) {
      const next = this.peek(1);
      const isMessageList =
        next.type === 'punct' && (next.text === '{' || next.text === '<' || next.text === ']');
      if (!isMessageList) this.fail(`expected ':' after '${name}' (a scalar value needs one)`);
      return { name, ...at, value: this.parseList() };
    }
    return this.fail(`expected ':' or '{' after '${name}' but found ${describe(this.peek())}`);
  }

  private parseValue(): TextScalar | TextMessage | TextList {
    if (this.is('{') || this.is('<')) return this.parseMessage();
    if (this.is('[')) return this.parseList();
    return this.parseScalar();
  }

  private parseMessage(): TextMessage {
    const open = this.take();
    const closer = CLOSER[open.text] ?? '}';
    const fields = this.parseFields(closer);
    this.expect(closer);
    return { kind: 'message', fields, line: open.line, column: open.column };
  }

  private parseList(): TextList {
    const open = this.expect('[');
    const items: (TextScalar | TextMessage)[] = [];
    if (!this.is(']')) {
      for (;;) {
        items.push(this.is('{') || this.is('<') ? this.parseMessage() : this.parseScalar());
        if (this.is(']')) break;
        if (!this.is(',')) this.fail(`expected ',' or ']' but found ${describe(this.peek())}`);
        this.take();
      }
    }
    this.expect(']');
    return { kind: 'list', items, line: open.line, column: open.column };
  }

  private parseScalar(): TextScalar {
    const token = this.take();
    const at = { line: token.line, column: token.column };
    if (token.type === 'string') {
      let text = token.text;
      // Adjacent string literals concatenate, as in C and protobuf.
      while (this.peek().type === 'string') text += this.take().text;
      return { kind: 'scalar', type: 'string', text, ...at };
    }
    if (token.type === 'number' || token.type === 'identifier') {
      return { kind: 'scalar', type: token.type, text: token.text, ...at };
    }
    if (token.type === 'punct' && token.text === '-') {
      const next = this.take();
      if (next.type === 'number' || next.type === 'identifier') {
        return { kind: 'scalar', type: next.type, text: `-${next.text}`, ...at };
      }
      this.fail(`expected a number after '-' but found ${describe(next)}`, next);
    }
    return this.fail(`expected a value but found ${describe(token)}`, token);
  }
}
