import { join } from 'node:path';
import type { RoutingTableData } from './routing.types';
import type { ChangeResult, RoutingTableRepository, SeedResult } from './routing-table.repository';
import { describeSeed, seedFromMeshConfig } from './routing-seed';

const SEED = join(__dirname, '../../../deploy/config/mesh.yaml');

/** The two writes a seed may make, answering as Redis would with or without a stored table. */
function repository(stored: { epoch: number } | null) {
  const calls: string[] = [];
  const repo = {
    seedIfAbsent: (_data: RoutingTableData, who: string): Promise<SeedResult> => {
      calls.push(`seedIfAbsent:${who}`);
      return Promise.resolve(
        stored ? { seeded: false, epoch: stored.epoch } : { seeded: true, epoch: 1 },
      );
    },
    reseed: (data: RoutingTableData, who: string): Promise<ChangeResult> => {
      calls.push(`reseed:${who}`);
      const epoch = (stored?.epoch ?? 0) + 1;
      return Promise.resolve({ epoch, table: { epoch, ...data } });
    },
  };
  return { calls, repo: repo as unknown as RoutingTableRepository };
}

describe('seedFromMeshConfig', () => {
  it('reports that it wrote the table when Redis had none', async () => {
    const { calls, repo } = repository(null);
    expect(await seedFromMeshConfig(repo, SEED, { who: 'router-seed' })).toEqual({
      seeded: true,
      epoch: 1,
    });
    expect(calls).toEqual(['seedIfAbsent:router-seed']);
  });

  it('reports that it kept the stored table, at its epoch, when there was one', async () => {
    const { repo } = repository({ epoch: 7 });
    expect(await seedFromMeshConfig(repo, SEED, { who: 'router-seed' })).toEqual({
      seeded: false,
      epoch: 7,
    });
  });

  it('replaces the stored table when forced (`mesh reseed`)', async () => {
    const { calls, repo } = repository({ epoch: 7 });
    expect(await seedFromMeshConfig(repo, SEED, { who: 'mesh-cli', force: true })).toEqual({
      seeded: true,
      epoch: 8,
    });
    expect(calls).toEqual(['reseed:mesh-cli']);
  });
});

describe('describeSeed (the boot log line and the CLI output)', () => {
  const file = 'deploy/config/mesh.yaml';

  it('says "seeded" only when the table was written', () => {
    expect(describeSeed({ seeded: true, epoch: 1 }, file)).toBe(
      'seeded routing table from deploy/config/mesh.yaml: epoch 1',
    );
    expect(describeSeed({ seeded: true, epoch: 8 }, file, { force: true })).toBe(
      'reseeded routing table from deploy/config/mesh.yaml: epoch 8',
    );
  });

  it('says the table was kept, at which epoch, and how to replace it', () => {
    const line = describeSeed({ seeded: false, epoch: 7 }, file);
    expect(line).toMatch(/^kept table at epoch 7 /);
    expect(line).not.toMatch(/\bseeded\b/);
    expect(line).toContain('npm run mesh -- reseed');
  });
});
