import { ModelConfigParseError } from './model-config.errors';
import { parsePbtxt } from './pbtxt.parser';
import type { TextMessage, TextValue } from './pbtxt.types';

/** Compact view of the tree: strings as-is, numbers `#n`, identifiers `@id`, messages as pairs. */
type Plain = string | Plain[] | { list: Plain[] };
function plainValue(value: TextValue): Plain {
  if (value.kind === 'message') return plain(value);
  if (value.kind === 'list') return { list: value.items.map(plainValue) };
  if (value.type === 'number') return `#${value.text}`;
  return value.type === 'identifier' ? `@${value.text}` : value.text;
}
function plain(message: TextMessage): Plain[] {
  return message.fields.map((f) => [f.name, plainValue(f.value)]);
}
const parse = (text: string) => plain(parsePbtxt(text, 'config.pbtxt'));

function parseError(text: string): ModelConfigParseError {
  try {
    parsePbtxt(text, 'config.pbtxt');
  } catch (error: unknown) {
    if (error instanceof ModelConfigParseError) return error;
    throw error;
  }
  throw new Error(`expected a parse error for ${JSON.stringify(text)}`);
}

describe('parsePbtxt syntax', () => {
  it.each<[string, string, Plain[]]>([
    ['an empty document', '  \n# only a comment\n', []],
    [
      'scalars after a colon',
      'a: 1 b: "x" c: TYPE_FP32',
      [
        ['a', '#1'],
        ['b', 'x'],
        ['c', '@TYPE_FP32'],
      ],
    ],
    ['a nested message with braces', 'm { a: 1 }', [['m', [['a', '#1']]]]],
    ['a nested message with angle brackets', 'm < a: 1 >', [['m', [['a', '#1']]]]],
    ['a colon before a message', 'm: { a: 1 }', [['m', [['a', '#1']]]]],
    ['deep nesting', 'a { b < c { d: 1 } > }', [['a', [['b', [['c', [['d', '#1']]]]]]]]],
    ['an empty message', 'm {}', [['m', []]]],
    [
      'a field repeated',
      'a: 1 a: 2',
      [
        ['a', '#1'],
        ['a', '#2'],
      ],
    ],
    ['a scalar list', 'dims: [1, -2, 3]', [['dims', { list: ['#1', '#-2', '#3'] }]]],
    ['an empty list', 'dims: []', [['dims', { list: [] }]]],
    [
      'a list of messages without a colon',
      'input [ { a: 1 }, < a: 2 > ]',
      [['input', { list: [[['a', '#1']], [['a', '#2']]] }]],
    ],
    [
      'a list of messages after a colon',
      'input: [ { a: 1 } ]',
      [['input', { list: [[['a', '#1']]] }]],
    ],
    ['an empty message list without a colon', 'input [ ]', [['input', { list: [] }]]],
    [
      'comma and semicolon separators',
      'a: 1, b: 2; c { d: 3; },',
      [
        ['a', '#1'],
        ['b', '#2'],
        ['c', [['d', '#3']]],
      ],
    ],
    [
      'comments at line ends',
      'a: 1 # one\n# whole line\nb: 2#two',
      [
        ['a', '#1'],
        ['b', '#2'],
      ],
    ],
    ['a # inside a string is not a comment', 'a: "x # y"', [['a', 'x # y']]],
    [
      'negative numbers',
      'a: -1 b: - 2 c: -0.5',
      [
        ['a', '#-1'],
        ['b', '#-2'],
        ['c', '#-0.5'],
      ],
    ],
    [
      'floats and exponents',
      'a: 1.5 b: .5 c: 1e-3 d: 2.5E+2 e: 1.0f',
      [
        ['a', '#1.5'],
        ['b', '#.5'],
        ['c', '#1e-3'],
        ['d', '#2.5E+2'],
        ['e', '#1.0f'],
      ],
    ],
    ['hex integers', 'a: 0x1F', [['a', '#0x1F']]],
    [
      'identifiers for booleans, enums and -inf',
      'a: true b: false c: KIND_GPU d: -inf',
      [
        ['a', '@true'],
        ['b', '@false'],
        ['c', '@KIND_GPU'],
        ['d', '@-inf'],
      ],
    ],
    ['single-quoted strings', "a: 'it''s'", [['a', 'its']]],
    ['adjacent strings concatenated', 'a: "ab" \'cd\'\n  "ef"', [['a', 'abcdef']]],
    ['simple escapes', String.raw`a: "q\"s\'b\\n\nt\tr\r"`, [['a', 'q"s\'b\\n\nt\tr\r']]],
    ['octal and hex escapes', String.raw`a: "\101\x42\x4a\0"`, [['a', 'ABJ\0']]],
    ['byte escapes forming UTF-8', String.raw`a: "\344\270\255\xe6\x96\x87"`, [['a', '中文']]],
    ['unicode escapes', String.raw`a: "\u00e9\U0001F600"`, [['a', 'é😀']]],
    ['non-ASCII text as is', 'a: "分类 😀"', [['a', '分类 😀']]],
    [
      'CRLF line endings',
      'a: 1\r\nb: 2\r\n',
      [
        ['a', '#1'],
        ['b', '#2'],
      ],
    ],
  ])('parses %s', (_name, text, expected) => {
    expect(parse(text)).toEqual(expected);
  });

  it('records 1-based positions of fields and values', () => {
    const tree = parsePbtxt('a: 1\n  m {\n    b: "x"\n  }', 'config.pbtxt');
    const m = tree.fields[1];
    expect(m).toMatchObject({ name: 'm', line: 2, column: 3, value: { line: 2, column: 5 } });
    const b = m?.value.kind === 'message' ? m.value.fields[0] : undefined;
    expect(b).toMatchObject({ name: 'b', line: 3, column: 5, value: { line: 3, column: 8 } });
  });
});

describe('parsePbtxt errors', () => {
  it.each<[string, string, number, number, string]>([
    ['an unclosed message', 'm {\n  a: 1\n', 3, 1, "expected '}' but found end of file"],
    ['a mismatched closer', 'm < a: 1 }', 1, 10, "expected '>' but found '}'"],
    ['a stray token in a message', 'm {\n  a: 1\n  5\n}', 3, 3, "expected '}' but found '5'"],
    ['a stray closer at top level', 'a: 1 }', 1, 6, "expected a field name but found '}'"],
    ['a missing value', 'a: }', 1, 4, "expected a value but found '}'"],
    ['a missing colon before a scalar', 'a 1', 1, 3, "expected ':' or '{' after 'a' but found '1'"],
    [
      'a scalar list without colon',
      'dims [1, 2]',
      1,
      6,
      "expected ':' after 'dims' (a scalar value needs one)",
    ],
    ['a list missing a comma', 'dims: [1 2]', 1, 10, "expected ',' or ']' but found '2'"],
    ['an unclosed list', 'dims: [1,\n2', 2, 2, "expected ',' or ']' but found end of file"],
    [
      'a stray name in a message list',
      'input [\n  { a: 1 }\n  foo\n]',
      3,
      3,
      "expected ',' or ']' but found 'foo'",
    ],
    ['a minus before a string', 'a: -"x"', 1, 5, 'expected a number after \'-\' but found "x"'],
    ['an unterminated string', 'a: 1\nb: "abc\nc: 2', 2, 4, 'unterminated string'],
    ['a string at end of file', "a: 'abc", 1, 4, 'unterminated string'],
    ['an invalid escape', 'a: "ab\\qc"', 1, 7, "invalid escape '\\q' in string"],
    [
      'bytes that are not UTF-8',
      'a: 1\n b: "ok\\xff"',
      2,
      5,
      'string is not valid UTF-8 (check its \\x or octal escapes)',
    ],
    ['an invalid number', 'a: 1.2.3', 1, 4, "invalid number '1.2.3'"],
    ['digits running into letters', 'a: 12abc', 1, 4, "invalid number '12abc'"],
    ['an unexpected character', 'a: 1\n  b: @', 2, 6, 'unexpected character "@"'],
    ['an extension name', 'm { [ext]: 1 }', 1, 5, "extension fields ('[name]') are not supported"],
  ])('reports %s with line and column', (_name, text, line, column, reason) => {
    const error = parseError(text);
    expect(error).toMatchObject({ file: 'config.pbtxt', line, column, reason });
    expect(error.message).toBe(`config.pbtxt:${line}:${column}: ${reason}`);
    expect(error.code).toBe('MODEL_CONFIG_INVALID');
  });
});
