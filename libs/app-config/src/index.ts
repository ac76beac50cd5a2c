export { parseBackendBudgets, type BackendBudgets } from './backend-budgets';
export { loadBatchWorkerConfig, type BatchWorkerConfig } from './batch-worker.config';
export { loadCoordinatorConfig, type CoordinatorConfig } from './coordinator.config';
export { flagsToEnv, loadModelHostConfig, type ModelHostConfig } from './model-host.config';
export { loadRouterConfig, type RouterConfig } from './router.config';
