import { buildInferRequest, type KServeClient } from '@mesh/kserve';
import type { Warmer } from '../rollout-ports';
import type { RepositoryModelCatalog } from './repository-model-catalog';

/** Warm-up inferences sent straight to every backend, encoded by the version's own pipeline. */
export class KServeWarmer implements Warmer {
  constructor(
    private readonly clients: readonly KServeClient[],
    private readonly catalog: RepositoryModelCatalog,
    private readonly deadlineMs: number,
  ) {}

  async warm(model: string, version: number, requests: number, traceparent?: string) {
    const pre = await this.catalog.load(model, version);
    const batch = pre.encode([{ text: 'warm up 预热' }]);
    const request = buildInferRequest({ model, version: String(version), inputs: batch.tensors });
    // A traced rollout step's warm-up span: each host's ModelInfer span becomes its child.
    const options = {
      deadlineMs: this.deadlineMs,
      ...(traceparent ? { metadata: { traceparent } } : {}),
    };
    let ok = 0;
    let failed = 0;
    for (let i = 0; i < requests; i++) {
      for (const client of this.clients) {
        try {
          await client.modelInfer(request, options);
          ok += 1;
        } catch {
          failed += 1;
        }
      }
    }
    return { ok, failed };
  }
}
