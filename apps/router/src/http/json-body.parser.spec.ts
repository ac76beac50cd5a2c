import Fastify from 'fastify';
import { installJsonBodyParser } from './json-body.parser';

describe('installJsonBodyParser', () => {
  const app = Fastify();
  installJsonBodyParser(app);
  app.post('/echo', (req) => ({ body: req.body }));
  app.setErrorHandler((err: Error & { code?: string; statusCode?: number }, _req, reply) =>
    reply
      .status(err.statusCode ?? 500)
      .send({ name: err.name, code: err.code, message: err.message }),
  );
  afterAll(() => app.close());

  const post = (payload: string, contentType?: string) =>
    app.inject({
      method: 'POST',
      url: '/echo',
      payload,
      headers: contentType === undefined ? {} : { 'content-type': contentType },
    });

  it('parses JSON with any parameters', async () => {
    const r = await post('{"a":[1,{"b":"c"}]}', 'application/json; charset=utf-8');
    expect(r.statusCode).toBe(200);
    expect(r.json()).toEqual({ body: { a: [1, { b: 'c' }] } });
  });

  it.each([
    ['{"__proto__":{"x":1}}', '__proto__'],
    ['{"a":[{"constructor":{"prototype":{}}}]}', 'a[0].constructor'],
    ['{"\\u005f_proto__":1}', '__proto__'],
  ])('refuses the reserved key in %s, naming %s', async (payload, path) => {
    const r = await post(payload, 'application/json');
    expect(r.json()).toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: `invalid request: ${path}: is a reserved key`,
    });
  });

  it('keeps malformed JSON a 400 SyntaxError', async () => {
    const r = await post('{"a":', 'application/json');
    expect(r.statusCode).toBe(400);
    expect(r.json()).toMatchObject({ name: 'SyntaxError' });
  });

  it('leaves other or missing content types to Fastify (415)', async () => {
    expect((await post('a=1', 'application/x-www-form-urlencoded')).statusCode).toBe(415);
    expect((await post('{"a":1}')).statusCode).toBe(415);
  });

  it('refuses text/plain too, rather than passing the route a string', async () => {
    expect((await post('hello', 'text/plain')).statusCode).toBe(415);
  });
});
