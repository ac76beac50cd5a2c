import type { Tenant } from '@mesh/routing';
import type { TenantAuthenticator } from '@mesh/tenancy';
import type { CallContext } from '../predict/predict-commands';

/** Turns a call's bearer key into its tenant (UnauthenticatedError → 401 otherwise). */
export class CallerService {
  constructor(private readonly authenticator: TenantAuthenticator) {}

  authenticate(ctx: Pick<CallContext, 'authorization'>): Tenant {
    return this.authenticator.authenticate(ctx.authorization);
  }

  authenticateHeader(authorization: string | undefined): Tenant {
    return this.authenticator.authenticate(authorization);
  }
}
