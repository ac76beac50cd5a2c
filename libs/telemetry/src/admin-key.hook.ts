import type { Metadata } from '@grpc/grpc-js';
import { type CanActivate, type ExecutionContext, Inject, Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { ADMIN_AUTHENTICATOR } from './telemetry-tokens';

/**
 * What the guard needs of the admin-key check (`@mesh/tenancy`'s AdminAuthenticator), declared
 * here because telemetry sits below tenancy: throw UNAUTHENTICATED or ADMIN_FORBIDDEN, or pass.
 */
export interface AdminKeyVerifier {
  verify(authorization: string | undefined): void;
}

/**
 * The one check of `ADMIN_API_KEY` for every admin endpoint of every app
 * (`@UseGuards(AdminKeyGuard)`): no or malformed `authorization` → UNAUTHENTICATED (401), any
 * other key or admin disabled → ADMIN_FORBIDDEN (403). It throws domain errors, so the answer
 * goes through the same error table and shape as every other error, over HTTP and gRPC alike.
 */
@Injectable()
export class AdminKeyGuard implements CanActivate {
  constructor(@Inject(ADMIN_AUTHENTICATOR) private readonly auth: AdminKeyVerifier) {}

  canActivate(context: ExecutionContext): boolean {
    this.auth.verify(authorizationOf(context));
    return true;
  }
}

function authorizationOf(context: ExecutionContext): string | undefined {
  if (context.getType() === 'rpc') {
    const value = context.switchToRpc().getContext<Metadata>().get('authorization')[0];
    return typeof value === 'string' ? value : undefined;
  }
  return context.switchToHttp().getRequest<FastifyRequest>().headers.authorization;
}
