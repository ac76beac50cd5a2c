import { describeHealthApi } from '@mesh/telemetry';
import { describeAdminApi } from '../admin/admin.openapi';
import { describePredictApi } from '../http/predict.openapi';
import { describeJobsApi } from '../jobs/jobs.openapi';
import { ApiDocs } from './api-docs';

/** Health and metrics, answered by @mesh/telemetry's controllers. */
function describeOperationsApi(docs: ApiDocs): void {
  describeHealthApi(docs, {
    readiness: 'Redis reachable, routing table loaded, a backend ready',
  });
}

/**
 * Every HTTP API of the router. A new controller adds its `describe…Api` function here (see
 * the router README, "OpenAPI").
 */
export const API_DESCRIPTIONS: readonly ((docs: ApiDocs) => void)[] = [
  describePredictApi,
  describeJobsApi,
  describeAdminApi,
  describeOperationsApi,
];

/** The router's OpenAPI 3 document, generated from the zod schemas the edges validate with. */
export function buildRouterOpenApi(version = '1'): ReturnType<ApiDocs['document']> {
  const docs = new ApiDocs();
  for (const describe of API_DESCRIPTIONS) describe(docs);
  return docs.document(version);
}
