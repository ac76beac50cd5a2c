import {
  OpenAPIRegistry,
  OpenApiGeneratorV3,
  extendZodWithOpenApi,
  type ResponseConfig,
  type RouteConfig,
} from '@asteasolutions/zod-to-openapi';
import { z, type AnyZodObject, type ZodTypeAny } from 'zod';
import { ERROR_TABLE, type ErrorCode } from '@mesh/errors';

// Adds `.openapi()` to every zod type (schemas built before this line included).
extendZodWithOpenApi(z);

/** Who may call an operation: a tenant API key, the admin key, or anyone. */
export type ApiAuth = 'tenant' | 'admin' | 'none';

/** One HTTP operation, described from the same zod schemas the edge validates with. */
export interface ApiOperation {
  method: 'get' | 'post' | 'put' | 'delete';
  /** OpenAPI path, parameters in braces: `/v1/admin/routes/{tenant}/{task}`. */
  path: string;
  summary: string;
  description?: string;
  tag: string;
  auth: ApiAuth;
  /** JSON request body. Adds the body errors (400 INVALID_JSON, 413, 415). */
  body?: ZodTypeAny;
  /** Other request content types the operation accepts beside JSON (e.g. an NDJSON upload). */
  alternativeBodies?: Readonly<Record<string, ZodTypeAny>>;
  params?: AnyZodObject;
  query?: AnyZodObject;
  /** Only the request headers this operation reads (x-request-id is added to every one). */
  headers?: AnyZodObject;
  response: { status?: number; description: string; schema: ZodTypeAny; contentType?: string };
  /** Error codes this operation answers besides the auth and body ones added for it. */
  errors: readonly ErrorCode[];
}

/** The error body every endpoint answers with. */
export const errorBodySchema = z
  .object({
    error: z.object({
      code: z.string().describe('domain error code, e.g. TASK_NOT_FOUND (see the router README)'),
      message: z.string(),
      details: z
        .record(z.unknown())
        .optional()
        .describe('structured facts, e.g. issues: [{path, message}], limit, reasons'),
    }),
  })
  .openapi('Error');

const requestIdHeader = z
  .string()
  .optional()
  .describe('echoed on the response; generated when absent or malformed');

const BODY_ERRORS: readonly ErrorCode[] = [
  'INVALID_JSON',
  'INVALID_ARGUMENT',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
];
const AUTH_ERRORS: Readonly<Record<ApiAuth, readonly ErrorCode[]>> = {
  tenant: ['UNAUTHENTICATED'],
  admin: ['UNAUTHENTICATED', 'ADMIN_FORBIDDEN'],
  none: [],
};
const SECURITY: Readonly<Record<ApiAuth, RouteConfig['security']>> = {
  tenant: [{ tenantKey: [] }],
  admin: [{ adminKey: [] }],
  none: [],
};

/**
 * Collects the router's HTTP operations and generates one OpenAPI 3 document. Every
 * controller describes its operations in a sibling `*.openapi.ts` (a function taking this
 * class) and is listed once in `router.openapi.ts`; error responses come from the error
 * table, so a documented status can never disagree with the one sent.
 */
export class ApiDocs {
  private readonly registry = new OpenAPIRegistry();

  constructor() {
    this.registry.register('Error', errorBodySchema);
    const bearer = (description: string) => ({
      type: 'http' as const,
      scheme: 'bearer',
      bearerFormat: 'opaque API key',
      description,
    });
    this.registry.registerComponent(
      'securitySchemes',
      'tenantKey',
      bearer('A tenant API key (not a JWT): `Authorization: Bearer <key>`.'),
    );
    this.registry.registerComponent(
      'securitySchemes',
      'adminKey',
      bearer('The router’s ADMIN_API_KEY: `Authorization: Bearer <key>`.'),
    );
  }

  /** Names a schema so the document refers to it as `#/components/schemas/<name>`. */
  schema<T extends ZodTypeAny>(name: string, schema: T): T {
    return this.registry.register(name, schema);
  }

  operation(op: ApiOperation): void {
    const headers = z.object({ 'x-request-id': requestIdHeader }).merge(op.headers ?? z.object({}));
    this.registry.registerPath({
      method: op.method,
      path: op.path,
      summary: op.summary,
      ...(op.description ? { description: op.description } : {}),
      tags: [op.tag],
      security: SECURITY[op.auth],
      request: {
        headers,
        ...(op.params ? { params: op.params } : {}),
        ...(op.query ? { query: op.query } : {}),
        ...(op.body
          ? {
              body: {
                required: true,
                content: {
                  'application/json': { schema: op.body },
                  ...Object.fromEntries(
                    Object.entries(op.alternativeBodies ?? {}).map(([type, schema]) => [
                      type,
                      { schema },
                    ]),
                  ),
                },
              },
            }
          : {}),
      },
      responses: {
        [String(op.response.status ?? 200)]: {
          description: op.response.description,
          content: {
            [op.response.contentType ?? 'application/json']: { schema: op.response.schema },
          },
        },
        ...errorResponses([...AUTH_ERRORS[op.auth], ...(op.body ? BODY_ERRORS : []), ...op.errors]),
      },
    });
  }

  document(version: string): ReturnType<OpenApiGeneratorV3['generateDocument']> {
    return new OpenApiGeneratorV3(this.registry.definitions).generateDocument({
      openapi: '3.0.3',
      info: {
        title: 'model mesh router',
        version,
        description:
          'Tenant-routed prediction over KServe v2 backends. Every error answers ' +
          '`{"error": {"code", "message", "details?"}}`; the status per code is in the router README.',
      },
    });
  }
}

/** One response per HTTP status, listing the codes that produce it. */
function errorResponses(codes: readonly ErrorCode[]): Record<string, ResponseConfig> {
  const byStatus = new Map<number, Set<ErrorCode>>();
  for (const code of codes) {
    const status = ERROR_TABLE[code].http;
    const set = byStatus.get(status) ?? new Set<ErrorCode>();
    set.add(code);
    byStatus.set(status, set);
  }
  const out: Record<string, ResponseConfig> = {};
  for (const [status, set] of [...byStatus.entries()].sort(([a], [b]) => a - b)) {
    out[String(status)] = {
      description: [...set].join(', '),
      content: { 'application/json': { schema: errorBodySchema } },
    };
  }
  return out;
}
