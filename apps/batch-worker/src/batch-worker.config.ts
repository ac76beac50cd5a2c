/** The worker's environment is declared in @mesh/app-config, where the deploy scripts read it too. */
export { loadBatchWorkerConfig, type BatchWorkerConfig } from '@mesh/app-config';
