import { describeHealthApi } from '@mesh/telemetry';
import { z } from 'zod';
import { describeDashboardApi } from '../dashboard/dashboard.openapi';
import { describeRolloutsApi } from '../http/rollouts.openapi';
import { ApiDocs } from './api-docs';

/** Health, metrics (@mesh/telemetry's controllers) and the dashboard's page. */
function describeOperationsApi(docs: ApiDocs): void {
  describeHealthApi(docs, { readiness: 'Redis reachable' });
  docs.operation({
    tag: 'dashboard',
    auth: 'none',
    method: 'get',
    path: '/ui',
    summary: 'The operator dashboard (`/` and `/ui/` redirect here)',
    description: 'Public like a login page; every datum it shows needs the admin key.',
    response: { description: 'the page', schema: z.string(), contentType: 'text/html' },
    errors: ['NOT_FOUND'],
  });
}

/**
 * Every HTTP API of the coordinator. A new controller adds its `describe…Api` function here
 * (see the coordinator README, "OpenAPI").
 */
export const API_DESCRIPTIONS: readonly ((docs: ApiDocs) => void)[] = [
  describeRolloutsApi,
  describeDashboardApi,
  describeOperationsApi,
];

/** The coordinator's OpenAPI 3 document, generated from the zod schemas it validates with. */
export function buildCoordinatorOpenApi(version = '1'): ReturnType<ApiDocs['document']> {
  const docs = new ApiDocs();
  for (const describe of API_DESCRIPTIONS) describe(docs);
  return docs.document(version);
}
