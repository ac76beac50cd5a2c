import { readMeshConfigFile } from './mesh-config.parser';
import type { RoutingTableRepository, SeedResult } from './routing-table.repository';

export interface SeedFromFileOptions {
  /** Audit identity, e.g. `router` at boot or `mesh-cli` for an explicit reseed. */
  who: string;
  /** Replace an existing table (`mesh reseed`); by default an existing table is kept. */
  force?: boolean;
}

/**
 * Seeds the routing table from `mesh.yaml` (`MESH_CONFIG`). The file is validated first, so a
 * broken file fails loudly even when the table already exists and it would not be used. The
 * result says whether the table was written (`seeded`) or an existing one was kept, and the
 * epoch the store is at afterwards.
 */
export async function seedFromMeshConfig(
  repository: RoutingTableRepository,
  file: string,
  options: SeedFromFileOptions,
): Promise<SeedResult> {
  const data = await readMeshConfigFile(file);
  if (options.force) {
    const { epoch } = await repository.reseed(data, options.who);
    return { seeded: true, epoch };
  }
  return repository.seedIfAbsent(data, options.who);
}

/**
 * What to tell the operator about a seed: "seeded" only when the table was written. A kept
 * table is the normal case of every start after the first, and edits made since (admin API,
 * dashboard, rollouts) live in it, so the line says how to replace it on purpose.
 */
export function describeSeed(
  result: SeedResult,
  file: string,
  options: { force?: boolean } = {},
): string {
  if (!result.seeded) {
    return `kept table at epoch ${result.epoch} (${file} is used only when Redis has none; \`npm run mesh -- reseed\` replaces it)`;
  }
  return `${options.force ? 'reseeded' : 'seeded'} routing table from ${file}: epoch ${result.epoch}`;
}
