import { timingSafeEqual } from 'node:crypto';
import { AdminForbiddenError, UnauthenticatedError } from '@mesh/routing';
import { bearerKey, sha256Bytes } from './api-key';

/**
 * Guards admin calls with `ADMIN_API_KEY`. Both sides are hashed first so the constant-time
 * comparison always sees equal lengths and the key length does not leak. Without a
 * configured key, admin access is disabled.
 */
export class AdminAuthenticator {
  private readonly adminHash: Buffer | null;

  constructor(adminApiKey: string | undefined) {
    this.adminHash = adminApiKey ? sha256Bytes(adminApiKey) : null;
  }

  get enabled(): boolean {
    return this.adminHash !== null;
  }

  /** Missing/malformed header → UnauthenticatedError (401); any other key → AdminForbiddenError (403). */
  verify(authorization: string | readonly string[] | undefined): void {
    const key = bearerKey(authorization);
    if (key === undefined) throw new UnauthenticatedError();
    if (!this.adminHash || !timingSafeEqual(sha256Bytes(key), this.adminHash)) {
      throw new AdminForbiddenError();
    }
  }
}
