import { type CanActivate, type ExecutionContext, Inject, Injectable } from '@nestjs/common';
import type { AdminAuthenticator } from '@mesh/routing';
import type { FastifyRequest } from 'fastify';
import { ADMIN_AUTHENTICATOR } from '../coordinator.tokens';

/** `Authorization: Bearer $ADMIN_API_KEY` on every rollout call (401 missing, 403 wrong). */
@Injectable()
export class AdminKeyGuard implements CanActivate {
  constructor(@Inject(ADMIN_AUTHENTICATOR) private readonly auth: AdminAuthenticator) {}

  canActivate(context: ExecutionContext): boolean {
    this.auth.verify(context.switchToHttp().getRequest<FastifyRequest>().headers.authorization);
    return true;
  }
}
