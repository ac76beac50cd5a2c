/** Syntax tree of a protobuf text-format document, before any schema is applied. */

export interface SourcePosition {
  line: number;
  column: number;
}

export type TokenType = 'identifier' | 'number' | 'string' | 'punct' | 'eof';

export interface Token extends SourcePosition {
  type: TokenType;
  /** Source text for identifiers, numbers and punctuation; the decoded value for strings. */
  text: string;
}

/** A scalar as written: `-` is folded into numbers and identifiers (`-1`, `-inf`). */
export interface TextScalar extends SourcePosition {
  kind: 'scalar';
  type: 'identifier' | 'number' | 'string';
  text: string;
  /**
   * Set on strings that came from a JSON ModelConfig: protobuf's JSON mapping writes 64-bit
   * integers and enum names as strings, so the reader accepts them where it expects those.
   */
  fromJson?: boolean;
}

export interface TextMessage extends SourcePosition {
  kind: 'message';
  fields: TextField[];
}

/** `[a, b]` — kept as a node so singular fields can reject it with a position. */
export interface TextList extends SourcePosition {
  kind: 'list';
  items: (TextScalar | TextMessage)[];
}

export type TextValue = TextScalar | TextMessage | TextList;

export interface TextField extends SourcePosition {
  name: string;
  value: TextValue;
}
