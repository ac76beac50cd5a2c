import { ModelConfigParseError } from './model-config.errors';
import type { Token } from './pbtxt.types';

const PUNCT = new Set(['{', '}', '<', '>', '[', ']', ':', ',', ';', '-']);
const IDENT_START = /[A-Za-z_]/;
const IDENT_PART = /[A-Za-z0-9_]/;
const NUMBER_RE =
  /(?:0[xX][0-9a-fA-F]+|(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?[fF]?)/y;
const UTF8 = new TextDecoder('utf-8', { fatal: true });
const SIMPLE_ESCAPES: Record<string, number> = {
  n: 0x0a,
  t: 0x09,
  r: 0x0d,
  a: 0x07,
  b: 0x08,
  f: 0x0c,
  v: 0x0b,
  '\\': 0x5c,
  "'": 0x27,
  '"': 0x22,
  '?': 0x3f,
};

/**
 * Splits protobuf text format into tokens with 1-based line/column positions. Strings are
 * decoded here (escapes are byte-level, as in protobuf, then read as UTF-8).
 */
export class PbtxtLexer {
  private pos = 0;
  private line = 1;
  private lineStart = 0;

  constructor(
    private readonly text: string,
    private readonly file: string,
  ) {}

  tokenize(): Token[] {
    const tokens: Token[] = [];
    for (;;) {
      this.skipBlanks();
      const token = this.next();
      tokens.push(token);
      if (token.type === 'eof') return tokens;
    }
  }

  private get column(): number {
    return this.pos - this.lineStart + 1;
  }

  private fail(reason: string, line = this.line, column = this.column): never {
    throw new ModelConfigParseError(this.file, line, column, reason);
  }

  private skipBlanks(): void {
    while (this.pos < this.text.length) {
      const ch = this.text[this.pos];
      if (ch === '\n') {
        this.pos++;
        this.line++;
        this.lineStart = this.pos;
      } else if (ch === ' ' || ch === '\t' || ch === '\r' || ch === '\f' || ch === '\v') {
        this.pos++;
      } else if (ch === '#') {
        while (this.pos < this.text.length && this.text[this.pos] !== '\n') this.pos++;
      } else {
        return;
      }
    }
  }

  private next(): Token {
    const start = { line: this.line, column: this.column };
    const ch = this.text[this.pos];
    if (ch === undefined) return { type: 'eof', text: '', ...start };
    if (ch === '"' || ch === "'") return { type: 'string', text: this.readString(ch), ...start };
    if (IDENT_START.test(ch)) return { type: 'identifier', text: this.readIdentifier(), ...start };
    if (/[0-9]/.test(ch) || (ch === '.' && /[0-9]/.test(this.text[this.pos + 1] ?? ''))) {
      return { type: 'number', text: this.readNumber(), ...start };
    }
    if (PUNCT.has(ch)) {
      this.pos++;
      return { type: 'punct', text: ch, ...start };
    }
    return this.fail(`unexpected character ${JSON.stringify(ch)}`);
  }

  private readIdentifier(): string {
    const begin = this.pos;
    while (this.pos < this.text.length && IDENT_PART.test(this.text[this.pos] ?? '')) this.pos++;
    return this.text.slice(begin, this.pos);
  }

  private readNumber(): string {
    NUMBER_RE.lastIndex = this.pos;
    const match = NUMBER_RE.exec(this.text);
    const literal = match?.[0] ?? '';
    const end = this.pos + literal.length;
    // `12abc` or `1.2.3` is one bad token, not a number followed by something else.
    if (/[A-Za-z0-9_.]/.test(this.text[end] ?? '')) {
      let stop = end;
      while (/[A-Za-z0-9_.]/.test(this.text[stop] ?? '')) stop++;
      this.fail(`invalid number '${this.text.slice(this.pos, stop)}'`);
    }
    this.pos = end;
    return literal;
  }

  private readString(quote: string): string {
    const startLine = this.line;
    const startColumn = this.column;
    this.pos++;
    const bytes: number[] = [];
    for (;;) {
      const ch = this.text[this.pos];
      if (ch === undefined || ch === '\n') {
        this.fail('unterminated string', startLine, startColumn);
      }
      if (ch === quote) {
        this.pos++;
        return this.decodeUtf8(bytes, startLine, startColumn);
      }
      if (ch === '\\') {
        this.readEscape(bytes);
        continue;
      }
      const cp = this.text.codePointAt(this.pos) ?? 0;
      const encoded = Buffer.from(String.fromCodePoint(cp), 'utf8');
      bytes.push(...encoded);
      this.pos += cp > 0xffff ? 2 : 1;
    }
  }

  /** Protobuf `string` fields must hold UTF-8; byte escapes could form anything else. */
  private decodeUtf8(bytes: number[], line: number, column: number): string {
    try {
      return UTF8.decode(Uint8Array.from(bytes));
    } catch {
      return this.fail('string is not valid UTF-8 (check its \\x or octal escapes)', line, column);
    }
  }

  private readEscape(bytes: number[]): void {
    const column = this.column;
    const ch = this.text[this.pos + 1] ?? '';
    const simple = SIMPLE_ESCAPES[ch];
    if (simple !== undefined) {
      bytes.push(simple);
      this.pos += 2;
      return;
    }
    const rest = this.text.slice(this.pos + 1);
    const octal = /^[0-7]{1,3}/.exec(rest)?.[0];
    const hex = /^x([0-9a-fA-F]{1,2})/.exec(rest)?.[1];
    const unicode = /^(?:u([0-9a-fA-F]{4})|U([0-9a-fA-F]{8}))/.exec(rest);
    if (octal !== undefined) {
      bytes.push(parseInt(octal, 8) & 0xff);
      this.pos += 1 + octal.length;
    } else if (hex !== undefined) {
      bytes.push(parseInt(hex, 16));
      this.pos += 2 + hex.length;
    } else if (unicode) {
      const cp = parseInt(unicode[1] ?? unicode[2] ?? '', 16);
      if (cp > 0x10ffff) this.fail(`invalid unicode escape '\\${unicode[0]}'`, this.line, column);
      bytes.push(...Buffer.from(String.fromCodePoint(cp), 'utf8'));
      this.pos += 1 + unicode[0].length;
    } else {
      this.fail(`invalid escape '\\${ch}' in string`, this.line, column);
    }
  }
}
