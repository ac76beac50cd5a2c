/**
 * Measures one version's resident memory as the model host builds it, in a process of its own:
 * `mesh model add` forks this file (over IPC) rather than importing the host's builder, so the
 * CLI stays apart from the app and its own heap stays out of the measurement.
 *
 * Receives one {@link FootprintRequest} message, answers one {@link FootprintReply}, exits.
 */
import type { ModelConfig } from '@mesh/model-repository';
import { hostSessionDefaults, measureVersionFootprint } from './model-version-builder';

export interface FootprintRequest {
  config: ModelConfig;
  modelPath: string;
  model: string;
  version: number;
}

export type FootprintReply =
  { ok: true; mb: number; instances: number } | { ok: false; message: string };

async function measure(req: FootprintRequest): Promise<FootprintReply> {
  try {
    // Errors only, as the CLI's other sessions: graph-cleanup warnings are noise to a publisher.
    const defaults = { ...hostSessionDefaults(), logSeverityLevel: 3 as const };
    const identity = { model: req.model, version: req.version };
    const f = await measureVersionFootprint(req.config, req.modelPath, identity, defaults);
    return { ok: true, mb: f.mb, instances: f.instances };
  } catch (err: unknown) {
    return { ok: false, message: err instanceof Error ? err.message : String(err) };
  }
}

if (require.main === module && process.send) {
  process.once('message', (req: FootprintRequest) => {
    void measure(req).then((reply) => process.send!(reply, () => process.exit(0)));
  });
}
