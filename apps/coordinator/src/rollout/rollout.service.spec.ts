import { FakeClock } from '../testing/fake-mesh';
import { rolloutRecord, T0 } from '../testing/rollout-fixtures';
import type { RolloutPlanValidator } from './rollout-plan.check';
import type { RolloutUndoPlanner } from './rollout-undo';
import { InvalidCommandError, RevisionConflictError } from './rollout.errors';
import type { RolloutRepository } from './rollout.repository';
import { RolloutService } from './rollout.service';
import type { RolloutRecord } from './rollout.types';

/**
 * A repository whose saves of `contested` lose `losses` races in a row (another replica wrote
 * the record first) before one lands.
 */
function racingRepository(records: RolloutRecord[], contested: string, losses: number) {
  const byId = new Map(records.map((r) => [r.id, r]));
  const saves: RolloutRecord[] = [];
  let lost = 0;
  const repository = {
    get: async (id: string) => byId.get(id),
    activeId: async () => undefined,
    create: async (r: RolloutRecord) => (byId.set(r.id, r), r),
    save: async (r: RolloutRecord) => {
      saves.push(r);
      if (r.id === contested && lost < losses) {
        lost += 1;
        throw new RevisionConflictError(r.id);
      }
      byId.set(r.id, r);
      return r;
    },
  };
  return { saves, byId, repository: repository as unknown as RolloutRepository };
}

function service(repository: RolloutRepository): RolloutService {
  const undoPlanner = {
    plan: async (done: RolloutRecord, options: { id: string }) =>
      rolloutRecord({ id: options.id, undoOf: done.id }),
  } as unknown as RolloutUndoPlanner;
  return new RolloutService(repository, {} as RolloutPlanValidator, undoPlanner, new FakeClock(T0));
}

describe('RolloutService: saves racing another writer', () => {
  it('queues a command after losing five races (six tries)', async () => {
    const { saves, repository } = racingRepository([rolloutRecord({ state: 'canary' })], 'ro-1', 5);
    const view = await service(repository).command('ro-1', 'pause');
    expect(view.pendingCommand).toBe('pause');
    expect(saves).toHaveLength(6);
  });

  it('refuses the command with the conflict once a sixth race is lost', async () => {
    const { saves, repository } = racingRepository([rolloutRecord({ state: 'canary' })], 'ro-1', 6);
    await expect(service(repository).command('ro-1', 'pause')).rejects.toBeInstanceOf(
      RevisionConflictError,
    );
    expect(saves).toHaveLength(6);
  });

  it('never retries a command the state refuses', async () => {
    const { saves, repository } = racingRepository(
      [rolloutRecord({ state: 'aborted' })],
      'ro-1',
      0,
    );
    await expect(service(repository).command('ro-1', 'pause')).rejects.toBeInstanceOf(
      InvalidCommandError,
    );
    expect(saves).toHaveLength(0);
  });

  it('notes the undo on the completed rollout after lost races', async () => {
    const done = rolloutRecord({ state: 'completed' });
    const { byId, repository } = racingRepository([done], 'ro-1', 4);
    const undo = await service(repository).undo('ro-1', { force: false });
    expect(byId.get('ro-1')?.undoneBy).toBe(undo.id);
  });

  it('still answers the undo when the note loses five races, leaving it unwritten', async () => {
    const done = rolloutRecord({ state: 'completed' });
    const { saves, byId, repository } = racingRepository([done], 'ro-1', 5);
    const undo = await service(repository).undo('ro-1', { force: false });
    expect(undo.undoOf).toBe('ro-1');
    expect(saves.filter((r) => r.id === 'ro-1')).toHaveLength(5);
    expect(byId.get('ro-1')?.undoneBy).toBeUndefined();
  });
});
