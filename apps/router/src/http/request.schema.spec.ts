import { RequestValidationError } from '../errors/router.errors';
import { callContext, requestIdFrom, traceparentFrom } from './call-context';
import { parseRequest, predictBatchSchema, predictSchema, tokenizeSchema } from './request.schema';

describe('request validation at the edge', () => {
  it('accepts a predict body with an optional pair', () => {
    expect(parseRequest(predictSchema, { task: 'intent', text: '你好', textPair: 'x' })).toEqual({
      task: 'intent',
      text: '你好',
      textPair: 'x',
    });
  });

  it.each([
    [undefined, ''],
    [{ text: 'a' }, 'task'],
    [{ task: 'intent' }, 'text'],
    [{ task: 'intent', text: 5 }, 'text'],
    [{ task: 'bad task!', text: 'a' }, 'task'],
    [{ task: 'intent', text: 'a', extra: 1 }, ''],
  ])('rejects %j naming the field %j', (body, path) => {
    try {
      parseRequest(predictSchema, body);
      throw new Error('accepted');
    } catch (err: unknown) {
      expect(err).toBeInstanceOf(RequestValidationError);
      expect((err as RequestValidationError).issues[0]?.path).toBe(path);
    }
  });

  it('names the bad item of a batch by index', () => {
    expect(() => parseRequest(predictBatchSchema, { task: 't', texts: ['a', 'b', 3] })).toThrow(
      'texts[2]: must be a string',
    );
    expect(() => parseRequest(predictBatchSchema, { task: 't', texts: [] })).toThrow(
      'at least one text',
    );
  });
});

describe('empty texts', () => {
  const issues = (schema: Parameters<typeof parseRequest>[0], body: unknown) => {
    try {
      parseRequest(schema, body);
    } catch (err: unknown) {
      if (err instanceof RequestValidationError) return err.issues;
      throw err;
    }
    return [];
  };

  it.each(['', ' ', '\n\t', '\u3000'])(
    'refuses %j as a text or a given pair, naming the field',
    (blank) => {
      expect(issues(predictSchema, { task: 't', text: blank })).toEqual([
        { path: 'text', message: 'must not be empty' },
      ]);
      expect(issues(tokenizeSchema, { task: 't', text: 'a', textPair: blank })).toEqual([
        { path: 'textPair', message: 'must not be empty' },
      ]);
    },
  );

  it('names every empty text of a batch by its index, in one answer', () => {
    expect(() =>
      parseRequest(predictBatchSchema, { task: 't', texts: ['a', '', 'b', '  '] }),
    ).toThrow(
      'invalid request: 2 problems: texts[1]: must not be empty; texts[3]: must not be empty',
    );
  });

  it('accepts texts with any visible character, surrounded by whitespace or not', () => {
    expect(issues(predictSchema, { task: 't', text: ' 你 ' })).toEqual([]);
    expect(issues(predictBatchSchema, { task: 't', texts: ['.', '😀'] })).toEqual([]);
  });
});

describe('call context', () => {
  it('keeps a well-formed request id and generates one otherwise', () => {
    expect(requestIdFrom('abc-123')).toBe('abc-123');
    expect(requestIdFrom('bad id with spaces')).toMatch(/^[0-9a-f-]{36}$/);
    expect(requestIdFrom(undefined)).toMatch(/^[0-9a-f-]{36}$/);
    expect(requestIdFrom('x'.repeat(129))).not.toBe('x'.repeat(129));
  });

  it('passes a W3C traceparent through and drops malformed ones', () => {
    const tp = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    expect(traceparentFrom(tp)).toBe(tp);
    expect(traceparentFrom('00-xyz')).toBeUndefined();
  });

  it('reads authorization, sticky key and ids from headers', () => {
    const headers: Record<string, string> = {
      authorization: 'Bearer k',
      'x-mesh-sticky-key': 'user-7',
      'x-request-id': 'r1',
    };
    const ctx = callContext('http', (n) => headers[n], 5);
    expect(ctx).toEqual({
      transport: 'http',
      authorization: 'Bearer k',
      requestId: 'r1',
      traceparent: undefined,
      stickyKey: 'user-7',
      receivedAt: 5,
    });
  });
});
