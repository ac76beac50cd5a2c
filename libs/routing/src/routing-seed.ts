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
 * broken file fails loudly even when the table already exists and it would not be used.
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
