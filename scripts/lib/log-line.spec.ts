// eslint-disable-next-line @typescript-eslint/no-require-imports
const { formatLogLine } = require('./log-line') as {
  formatLogLine(
    line: string,
    options?: { logLevel?: string },
  ): { text: string | undefined; event?: Record<string, unknown> };
};

const json = (o: object) => JSON.stringify(o);

describe('formatLogLine (npm run up)', () => {
  it('names the model and version of a version routable line', () => {
    const line = json({
      level: 'info',
      event: 'version-verified',
      model: 'intent-zh',
      version: '2',
      backends: ['127.0.0.1:8001'],
      msg: 'version routable',
    });
    expect(formatLogLine(line).text).toBe('info  version routable: intent-zh v2');
  });

  it('adds why a version is unroutable', () => {
    const line = json({
      level: 'warn',
      model: 'sentiment-en',
      version: 1,
      reason: 'no backend reports sentiment-en v1 READY',
      msg: 'version unroutable',
    });
    expect(formatLogLine(line).text).toBe(
      'warn  version unroutable: sentiment-en v1 — no backend reports sentiment-en v1 READY',
    );
  });

  it('keeps the Nest context, error messages and lines without a model', () => {
    expect(
      formatLogLine(json({ level: 'error', context: 'Boot', msg: 'failed', err: { message: 'x' } }))
        .text,
    ).toBe('error [Boot] failed — x');
    expect(formatLogLine(json({ level: 'info', model: 'x1', msg: 'loaded' })).text).toBe(
      'info  loaded: x1',
    );
    expect(
      formatLogLine(json({ level: 'info', model: 'intent-zh', msg: "model 'intent-zh' ready" }))
        .text,
    ).toBe("info  model 'intent-zh' ready");
  });

  it('passes plain text through and exposes the parsed event', () => {
    expect(formatLogLine('plain text')).toEqual({ text: 'plain text', event: undefined });
    expect(formatLogLine('{not json')).toEqual({ text: '{not json', event: undefined });
    const { event } = formatLogLine(json({ event: 'redis', keyPrefix: 'mesh', msg: 'redis' }));
    expect(event).toMatchObject({ event: 'redis', keyPrefix: 'mesh' });
  });

  describe('access lines', () => {
    const routerLine = {
      level: 'info',
      service: 'router',
      event: 'access',
      requestId: 'req-7f3a',
      transport: 'http',
      method: 'POST',
      route: '/v1/predict',
      tenant: 'acme',
      task: 'intent',
      model: 'intent-zh',
      version: 2,
      status: 200,
      failed: false,
      latencyMs: 3.0912,
      msg: 'request',
    };

    it('prints status, method, route, model@version, duration, tenant and request id', () => {
      expect(formatLogLine(json(routerLine)).text).toBe(
        '200 POST /v1/predict intent-zh@2 3.1 ms acme req=req-7f3a',
      );
    });

    it("puts a failure's error code after its status", () => {
      const { model: _m, version: _v, ...unrouted } = routerLine;
      const line = json({ ...unrouted, status: 503, failed: true, code: 'MODEL_LOADING' });
      expect(formatLogLine(line).text).toBe(
        '503 MODEL_LOADING POST /v1/predict 3.1 ms acme req=req-7f3a',
      );
    });

    it('names a gRPC status', () => {
      const { route: _r, ...rest } = routerLine;
      const ok = json({ ...rest, transport: 'grpc', method: 'Predict', status: 0 });
      expect(formatLogLine(ok).text).toBe('grpc OK Predict intent-zh@2 3.1 ms acme req=req-7f3a');
      const refused = json({ ...rest, transport: 'grpc', method: 'Predict', status: 8 });
      expect(formatLogLine(refused).text).toMatch(/^grpc RESOURCE_EXHAUSTED Predict /);
    });

    it("hides the model host's per-request lines (debug) unless LOG_LEVEL=debug", () => {
      const hostLine = json({
        level: 'debug',
        service: 'model-host',
        event: 'access',
        requestId: 'req-7f3a',
        transport: 'grpc',
        method: 'ModelInfer',
        model: 'intent-zh',
        version: '2',
        status: 0,
        failed: false,
        latencyMs: 1.25,
      });
      const hidden = formatLogLine(hostLine);
      expect(hidden.text).toBeUndefined();
      expect(hidden.event).toMatchObject({ event: 'access' });
      expect(formatLogLine(hostLine, { logLevel: 'info' }).text).toBeUndefined();
      expect(formatLogLine(hostLine, { logLevel: 'debug' }).text).toBe(
        'grpc OK ModelInfer intent-zh@2 1.3 ms req=req-7f3a',
      );
      expect(formatLogLine(json(routerLine), { logLevel: 'warn' }).text).toBeUndefined();
    });
  });
});
