import { ConfigError } from '@mesh/config';
import { spanContextOf, startTracing, tracingEnabled, tracingSettingsOf } from './tracing';

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
