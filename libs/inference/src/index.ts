export type { BackendDirectory } from './backend-directory';
export { BadBackendResponseError } from './inference.errors';
export type { InferenceGateway, InferenceMeta } from './inference-gateway';
export { KServeBackends, type KServeBackendsOptions } from './kserve-backends';
export { servedSha256, shaMismatch } from './model-sha.check';
export { ServableVersion } from './servable-version';
export { VersionCatalog, type VersionProblem } from './version-catalog';
export { LoadedVersionsFeed, type LoadedListener } from './loaded-versions-feed';
