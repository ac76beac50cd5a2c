import { HostError } from '../core/model-host.errors';

/** A load that failed for a reason an operator can act on (shown in the repository index). */
export class ModelLoadError extends HostError {
  constructor(message: string) {
    super('INVALID_ARGUMENT', message);
  }
}
