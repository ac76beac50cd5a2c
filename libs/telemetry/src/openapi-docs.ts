import {
  OpenAPIRegistry,
  OpenApiGeneratorV3,
  extendZodWithOpenApi,
  type ResponseConfig,
  type RouteConfig,
  type ZodRequestBody,
} from '@asteasolutions/zod-to-openapi';
import { z, type AnyZodObject, type ZodTypeAny } from 'zod';
import { ERROR_TABLE, type ErrorCode } from '@mesh/errors';

// Adds `.openapi()` to every zod type (schemas built before this line included).
extendZodWithOpenApi(z);

/** How one kind of caller proves who it is: its bearer scheme and what a bad key answers. */
export interface ApiAuthScheme {
  /** Name under `components.securitySchemes`, e.g. `adminKey`. */
  scheme: string;
  description: string;
  /** Added to every operation of this kind, e.g. UNAUTHENTICATED and ADMIN_FORBIDDEN. */
  errors: readonly ErrorCode[];
}

/** What differs between the apps' documents; the error shape and the operations do not. */
export interface OpenApiDocsOptions<Auth extends string> {
  title: string;
  description: string;
  auth: Readonly<Record<Auth, ApiAuthScheme>>;
  /** Added to every operation with a JSON body (the app's body-parsing and validation codes). */
  bodyErrors: readonly ErrorCode[];
}

/** One HTTP operation, described from the same zod schemas the edge validates with. */
export interface ApiOperation<Auth extends string> {
  method: 'get' | 'post' | 'put' | 'delete';
  /** OpenAPI path, parameters in braces: `/v1/admin/routes/{tenant}/{task}`. */
  path: string;
  summary: string;
  description?: string;
  tag: string;
  /** `none`: anyone may call it. */
  auth: Auth | 'none';
  /** JSON request body. Adds the app's body errors. */
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

/** The error body every endpoint of every app answers with. */
export const errorBodySchema = z
  .object({
    error: z.object({
      code: z.string().describe('domain error code, e.g. TASK_NOT_FOUND (see the app README)'),
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

/** A bearer key that is not a JWT: what every mesh API key is. */
function bearer(description: string) {
  return { type: 'http' as const, scheme: 'bearer', bearerFormat: 'opaque API key', description };
}

/**
 * Collects an app's HTTP operations and generates one OpenAPI 3 document. Each controller
 * describes its operations in a sibling `*.openapi.ts` (a function taking the app's docs) and
 * is listed once in the app's `<app>.openapi.ts`; error responses come from `@mesh/errors`'
 * table, so a documented status can never disagree with the one sent.
 */
export class OpenApiDocs<Auth extends string> {
  private readonly registry = new OpenAPIRegistry();
  private readonly named = new Map<string, { source: ZodTypeAny; registered: ZodTypeAny }>();

  constructor(private readonly options: OpenApiDocsOptions<Auth>) {
    this.registry.register('Error', errorBodySchema);
    for (const auth of Object.values<ApiAuthScheme>(options.auth)) {
      this.registry.registerComponent('securitySchemes', auth.scheme, bearer(auth.description));
    }
  }

  /**
   * Names a schema so the document refers to it as `#/components/schemas/<name>`. Two
   * descriptions may name the same schema (one view served by two controllers); one name for
   * two different schemas is a mistake in the descriptions.
   */
  schema<T extends ZodTypeAny>(name: string, schema: T): T {
    const known = this.named.get(name);
    if (known && known.source !== schema) throw new Error(`two schemas named '${name}'`);
    if (known) return known.registered as T;
    const registered = this.registry.register(name, schema);
    this.named.set(name, { source: schema, registered });
    return registered;
  }

  operation(op: ApiOperation<Auth>): void {
    const headers = z.object({ 'x-request-id': requestIdHeader }).merge(op.headers ?? z.object({}));
    const auth = op.auth === 'none' ? undefined : this.options.auth[op.auth];
    const security: RouteConfig['security'] = auth ? [{ [auth.scheme]: [] }] : [];
    this.registry.registerPath({
      method: op.method,
      path: op.path,
      summary: op.summary,
      ...(op.description ? { description: op.description } : {}),
      tags: [op.tag],
      security,
      request: {
        headers,
        ...(op.params ? { params: op.params } : {}),
        ...(op.query ? { query: op.query } : {}),
        ...(op.body ? { body: requestBody(op.body, op.alternativeBodies) } : {}),
      },
      responses: {
        [String(op.response.status ?? 200)]: {
          description: op.response.description,
          content: {
            [op.response.contentType ?? 'application/json']: { schema: op.response.schema },
          },
        },
        ...errorResponses([
          ...(auth?.errors ?? []),
          ...(op.body ? this.options.bodyErrors : []),
          ...op.errors,
        ]),
      },
    });
  }

  document(version: string): ReturnType<OpenApiGeneratorV3['generateDocument']> {
    return new OpenApiGeneratorV3(this.registry.definitions).generateDocument({
      openapi: '3.0.3',
      info: { title: this.options.title, version, description: this.options.description },
    });
  }
}

function requestBody(
  json: ZodTypeAny,
  alternatives: Readonly<Record<string, ZodTypeAny>> = {},
): ZodRequestBody {
  return {
    required: true,
    content: {
      'application/json': { schema: json },
      ...Object.fromEntries(
        Object.entries(alternatives).map(([type, schema]) => [type, { schema }]),
      ),
    },
  };
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
