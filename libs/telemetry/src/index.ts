export { HealthController } from './health.controller';
export { MetricsController } from './metrics.controller';
export { createLogger, type Logger } from './logger';
export { createMetricsRegistry } from './metrics.registry';
export { NestPinoLogger } from './nest-logger';
export {
  runReadiness,
  type ReadinessCheck,
  type ReadinessReport,
  type ReadinessResult,
} from './readiness';
export { announceListening, httpUrlOf, runMain } from './run-app';
export { METRICS_REGISTRY, READINESS_CHECKS } from './telemetry.tokens';
