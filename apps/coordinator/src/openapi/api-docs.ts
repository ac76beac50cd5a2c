import { OpenApiDocs } from '@mesh/telemetry';

/** Who may call a coordinator operation: the admin key (or anyone: `none`). */
export type ApiAuth = 'admin';

/**
 * The coordinator's OpenAPI document: the admin key, the coordinator's body errors. Every
 * controller describes its operations in a sibling `*.openapi.ts` taking this class and is
 * listed once in `coordinator.openapi.ts`.
 */
export class ApiDocs extends OpenApiDocs<ApiAuth> {
  constructor() {
    super({
      title: 'model mesh coordinator',
      description:
        'Scheduled model-version rollouts and the operator dashboard’s data. Every error ' +
        'answers `{"error": {"code", "message", "details?"}}`; the status per code is in ' +
        '`@mesh/errors`’ table, the same on every app.',
      auth: {
        admin: {
          scheme: 'adminKey',
          description: 'The coordinator’s ADMIN_API_KEY: `Authorization: Bearer <key>`.',
          errors: ['UNAUTHENTICATED', 'ADMIN_FORBIDDEN'],
        },
      },
      bodyErrors: ['INVALID_JSON', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE'],
    });
  }
}
