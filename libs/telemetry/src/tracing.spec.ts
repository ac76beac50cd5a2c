import { ConfigError } from '@mesh/config';
import {
  EXPORT_PROBLEM_LOG_EVERY_MS,
  exportProblemLogger,
  spanContextOf,
  startRemoteChildSpan,
  startTracing,
  tracingEnabled,
  tracingSettingsOf,
} from './tracing';
import { pollUntil } from '../../../test/support/poll';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT = '00f067aa0ba902b7';

describe('tracingSettingsOf', () => {
  it('is off without an OTLP endpoint', () => {
    expect(tracingSettingsOf('router', {})).toBeUndefined();
    expect(tracingSettingsOf('router', { OTEL_EXPORTER_OTLP_ENDPOINT: ' ' })).toBeUndefined();
    expect(tracingSettingsOf('router', { OTEL_SERVICE_NAME: 'x' })).toBeUndefined();
  });

  it('appends /v1/traces to the base endpoint and defaults to http/protobuf', () => {
    expect(
      tracingSettingsOf('router', { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' }),
    ).toEqual({
      service: 'router',
      protocol: 'http/protobuf',
      endpoint: 'http://collector:4318/v1/traces',
    });
  });

  it('takes the traces endpoint as is, the service name and http/json', () => {
    expect(
      tracingSettingsOf('router', {
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://ignored:4318',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://tempo:4318/otlp/traces',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_SERVICE_NAME: 'router-eu',
      }),
    ).toEqual({
      service: 'router-eu',
      protocol: 'http/json',
      endpoint: 'http://tempo:4318/otlp/traces',
    });
  });

  it('is off when the SDK or the traces exporter is disabled', () => {
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };
    expect(tracingSettingsOf('router', { ...endpoint, OTEL_SDK_DISABLED: 'true' })).toBeUndefined();
    expect(
      tracingSettingsOf('router', { ...endpoint, OTEL_TRACES_EXPORTER: 'none' }),
    ).toBeUndefined();
  });

  it('refuses a protocol it does not export with, naming the variable and the choices', () => {
    const env = {
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4317',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
    };
    expect(() => tracingSettingsOf('router', env)).toThrow(ConfigError);
    expect(() => tracingSettingsOf('router', env)).toThrow(
      /OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" is not supported; expected one of http\/protobuf, http\/json/,
    );
  });
});

describe('spanContextOf', () => {
  it('reads a version-00 traceparent as a remote parent', () => {
    expect(spanContextOf(`00-${TRACE}-${PARENT}-01`)).toEqual({
      traceId: TRACE,
      spanId: PARENT,
      traceFlags: 1,
      isRemote: true,
    });
  });

  it.each([
    undefined,
    '',
    `00-${'0'.repeat(32)}-${PARENT}-01`,
    `00-${TRACE}-${'0'.repeat(16)}-01`,
    `00-${TRACE}-${PARENT}`,
    `ff-${TRACE}-${PARENT}-01`,
  ])('ignores %p', (tp) => {
    expect(spanContextOf(tp)).toBeUndefined();
  });
});

describe('startTracing', () => {
  it('starts nothing without an endpoint', () => {
    expect(startTracing('router', undefined, {})).toBeUndefined();
    expect(tracingEnabled()).toBe(false);
  });
});

describe('export problems', () => {
  it('logs at most one line per interval, saying how many it held back', () => {
    let now = 0;
    const warn = jest.fn();
    const log = exportProblemLogger({ warn }, 'http://collector:4318/v1/traces', () => now);
    log.error('export failed', new Error('connect ECONNREFUSED'));
    now = EXPORT_PROBLEM_LOG_EVERY_MS - 1;
    log.error('export failed', new Error('connect ECONNREFUSED'));
    log.warn('dropped 3 spans');
    now = EXPORT_PROBLEM_LOG_EVERY_MS;
    log.error('export failed', new Error('socket hang up'));
    log.info('ignored');
    expect(warn.mock.calls).toEqual([
      [
        { event: 'tracing.export', endpoint: 'http://collector:4318/v1/traces', heldBack: 0 },
        'tracing: export failed connect ECONNREFUSED',
      ],
      [
        { event: 'tracing.export', endpoint: 'http://collector:4318/v1/traces', heldBack: 2 },
        'tracing: export failed socket hang up',
      ],
    ]);
  });

  it('reaches the app log when the collector refuses the connection', async () => {
    const warn = jest.fn();
    const info = jest.fn();
    // The batch processor and the exporter read these from the process environment: a short
    // delay and timeout so the scheduled export fails (and is reported) soon.
    const saved = { ...process.env };
    Object.assign(process.env, {
      OTEL_BSP_SCHEDULE_DELAY: '50',
      OTEL_EXPORTER_OTLP_TIMEOUT: '500',
    });
    // Port 1 on loopback: nothing listens, the export is refused.
    const handle = startTracing(
      'router',
      { warn, info },
      {
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:1',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      },
    );
    try {
      expect(tracingEnabled()).toBe(true);
      startRemoteChildSpan('POST /v1/predict', undefined).end();
      await pollUntil(() => (warn.mock.calls.length > 0 ? true : undefined), {
        timeoutMs: 30_000,
        what: 'the refused export to be warned about',
      });
      expect(warn.mock.calls[0]?.[0]).toMatchObject({
        event: 'tracing.export',
        endpoint: 'http://127.0.0.1:1/v1/traces',
      });
    } finally {
      process.env = saved;
      await handle!.shutdown();
    }
    expect(tracingEnabled()).toBe(false);
  }, 60_000);
});
