/** The model host's environment is declared in @mesh/app-config, where the deploy scripts read it too. */
export { loadModelHostConfig, type ModelHostConfig } from '@mesh/app-config';
