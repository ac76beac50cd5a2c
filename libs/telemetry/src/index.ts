export { SampledAccessLog } from './access-log';
export { AdminKeyGuard, type AdminKeyVerifier } from './admin-key.hook';
export { EnumParamPipe } from './enum-param.hook';
export { HealthController } from './health.controller';
export { describeHealthApi, type HealthApiOptions } from './health.openapi';
export { createHttpApp, listenHttp, type HttpAppOptions } from './http-app';
export { streamRaw } from './http-stream';
export {
  InvalidParamError,
  PayloadTooLargeError,
  payloadTooLargeOf,
  type ParamIssue,
} from './http.errors';
export { MetricsController } from './metrics.controller';
export { createLogger, type Logger } from './logger';
export { createMetricsRegistry } from './metrics-registry';
export { NestPinoLogger } from './nest-logger';
export { OpenStreamsRegistry } from './open-streams-registry';
export {
  errorBodySchema,
  OpenApiDocs,
  type ApiAuthScheme,
  type ApiOperation,
  type OpenApiDocsOptions,
} from './openapi-docs';
export {
  runReadiness,
  type ReadinessCheck,
  type ReadinessReport,
  type ReadinessResult,
} from './readiness';
export { RedisHealthModule } from './redis-health.module';
export {
  RedisConnections,
  RedisModule,
  type RedisConnectionSpec,
  type RedisModuleOptions,
} from './redis.module';
export { RedisPingCheck, type Pingable } from './redis-ping.check';
export { announceListening, announceRedisPrefix, httpUrlOf, runMain } from './run-app';
export {
  bootstrapApp,
  type AppConfig,
  type BootContext,
  type BootstrapOptions,
} from './bootstrap-app';
export { ADMIN_AUTHENTICATOR, METRICS_REGISTRY, READINESS_CHECKS } from './telemetry-tokens';
export {
  endSpan,
  grpcCallAttributes,
  linkTo,
  OTLP_PROTOCOLS,
  recordChildSpan,
  SpanKind,
  spanContextOf,
  startChildSpan,
  startGrpcClientSpan,
  startRemoteChildSpan,
  startTracing,
  traceparentOf,
  tracingEnabled,
  tracingSettingsOf,
  type OtlpProtocol,
  type Span,
  type SpanStart,
  type TracingHandle,
  type TracingSettings,
} from './tracing';
