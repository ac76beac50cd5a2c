/** The coordinator's environment is declared in @mesh/app-config, where the deploy scripts read it too. */
export { loadCoordinatorConfig, type CoordinatorConfig } from '@mesh/app-config';
