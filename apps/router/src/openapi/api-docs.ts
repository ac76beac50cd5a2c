import { OpenApiDocs } from '@mesh/telemetry';

/** Who may call a router operation: a tenant API key or the admin key (or anyone: `none`). */
export type ApiAuth = 'tenant' | 'admin';

/**
 * The router's OpenAPI document: tenant and admin keys, the router's body errors. Every
 * controller describes its operations in a sibling `*.openapi.ts` taking this class and is
 * listed once in `router.openapi.ts`.
 */
export class ApiDocs extends OpenApiDocs<ApiAuth> {
  constructor() {
    super({
      title: 'model mesh router',
      description:
        'Tenant-routed prediction over KServe v2 backends. Every error answers ' +
        '`{"error": {"code", "message", "details?"}}`; the status per code is in the router README.',
      auth: {
        tenant: {
          scheme: 'tenantKey',
          description: 'A tenant API key (not a JWT): `Authorization: Bearer <key>`.',
          errors: ['UNAUTHENTICATED'],
        },
        admin: {
          scheme: 'adminKey',
          description: 'The router’s ADMIN_API_KEY: `Authorization: Bearer <key>`.',
          errors: ['UNAUTHENTICATED', 'ADMIN_FORBIDDEN'],
        },
      },
      bodyErrors: [
        'INVALID_JSON',
        'INVALID_ARGUMENT',
        'PAYLOAD_TOO_LARGE',
        'UNSUPPORTED_MEDIA_TYPE',
      ],
    });
  }
}
