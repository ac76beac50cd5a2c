export { histogramQuantile, latencyBucket, LATENCY_BOUNDS_MS } from './latency-histogram';
export {
  RedisTrafficSignalSource,
  type RedisTrafficSignalSourceOptions,
  type VersionRequests,
} from './redis-traffic-signal-source';
export {
  RouterHeartbeatRepository,
  routeBlockReason,
  type RouterHeartbeatRepositoryOptions,
} from './router-heartbeat.repository';
export type {
  CanAllRouteResult,
  ModelVersionRef,
  RouteBlocker,
  RouterHeartbeat,
} from './router-heartbeat.types';
export {
  TrafficSignalRecorder,
  type ShadowSample,
  type TrafficSample,
  type TrafficSignalRecorderOptions,
} from './traffic-signal-recorder';
export {
  VERSION_ERROR_CODES,
  isVersionError,
  versionErrors,
  type ShadowAgreement,
  type ShadowAgreementSource,
  type TrafficSignalQuery,
  type TrafficSignalSource,
  type TrafficVersionRef,
  type TrafficVersionsSource,
  type VersionSignals,
} from './traffic-signal.types';
