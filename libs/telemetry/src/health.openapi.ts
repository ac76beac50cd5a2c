import { z } from 'zod';
import type { OpenApiDocs } from './openapi-docs';

/** What an app's readiness checks (see its `READINESS_CHECKS`), e.g. `Redis reachable`. */
export interface HealthApiOptions {
  readiness: string;
}

/**
 * Health and metrics, the operations of `HealthController` and `MetricsController`: the same on
 * every app but for what readiness checks. Listed in each app's `<app>.openapi.ts`.
 */
export function describeHealthApi<Auth extends string>(
  docs: OpenApiDocs<Auth>,
  { readiness }: HealthApiOptions,
): void {
  const common = { tag: 'operations', auth: 'none', errors: [] } as const;
  const checks = z.object({ status: z.string() }).passthrough();
  docs.operation({
    ...common,
    method: 'get',
    path: '/healthz/live',
    summary: 'Liveness',
    response: { description: 'the process is up', schema: checks },
  });
  docs.operation({
    ...common,
    method: 'get',
    path: '/healthz/ready',
    summary: `Readiness: ${readiness}`,
    response: { description: 'ready (503 with the failing checks otherwise)', schema: checks },
  });
  docs.operation({
    ...common,
    method: 'get',
    path: '/metrics',
    summary: 'Prometheus metrics',
    response: {
      description: 'text exposition format',
      schema: z.string(),
      contentType: 'text/plain',
    },
  });
}
