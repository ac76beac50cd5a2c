import { versionKey, type PlacementReason } from '@mesh/placement';
import { PlacementBoard, type BoardBackend } from './placement-board';
import type {
  PlacementPlan,
  PlacementSnapshot,
  PolicyOptions,
  SkippedLoad,
  SnapshotVersion,
} from './placement-policy.types';

/**
 * Decides which versions are resident where, from one snapshot and nothing else (no I/O, no
 * clock but the snapshot's), so every rule is testable on fake backends:
 *
 * - An unbudgeted backend serves every listed or asked-for version and retires the unlisted
 *   versions of managed models at once: the behaviour before budgets.
 * - A budgeted backend holds copies: versions with traffic or demand get
 *   ceil(rate / ratePerCopy) copies (at least one, at most one per alive backend); a wanted
 *   version without traffic keeps one copy and is loaded ahead only into free room.
 * - Nothing leaves a budgeted backend before `minResidencyMs`; what nobody wants is retired,
 *   extra copies scaled down, and room for a load made by evicting the least recently used
 *   version that is not guarded (in flight, pinned, in a rollout, asked for).
 * - A load goes where the most budget is free, then the least load; it never overfills.
 */
export class PlacementPolicy {
  constructor(private readonly options: PolicyOptions) {}

  plan(snapshot: PlacementSnapshot): PlacementPlan {
    const board = new PlacementBoard(snapshot, this.options);
    const skipped: SkippedLoad[] = [];
    this.unbudgeted(board);
    this.retire(board);
    this.scaleDown(board);
    for (const v of this.byPriority(board)) {
      const why = this.placeCopies(board, v);
      if (why) skipped.push({ model: v.model, version: v.version, reason: why });
    }
    this.aheadOfUse(board);
    return { changes: board.changes, skipped };
  }

  /** Copies the version needs (loads may evict for these). */
  need(board: PlacementBoard, v: SnapshotVersion): number {
    // Traffic left over in the rate window from a version nobody wants any more (a rollout
    // just retired it) earns no copy: retiring and restoring it in one pass would thrash.
    if (v.wanted.length === 0) return 0;
    const alive = board.backends.length;
    const traffic =
      v.rate > 0 || v.wanted.includes('demand')
        ? Math.min(alive, Math.max(1, Math.ceil(v.rate / this.options.ratePerCopy)))
        : 0;
    const floor = v.wanted.includes('pin') || v.wanted.includes('rollout') ? 1 : 0;
    return Math.max(traffic, floor);
  }

  /** Unbudgeted backends: every listed or asked-for version, nothing unlisted of a managed model. */
  private unbudgeted(board: PlacementBoard): void {
    const managed = new Set(board.snapshot.managedModels);
    const served = (v: SnapshotVersion) => v.listed || v.wanted.includes('demand');
    for (const b of board.backends.filter((x) => x.budgetMb === null)) {
      for (const [key, r] of [...b.resident]) {
        const v = board.version(key, r);
        if (managed.has(v.model) && !served(v) && v.inFlight === 0) board.remove(b, key, 'retire');
      }
      for (const [key, v] of board.versions) {
        if (!served(v) || b.resident.has(key)) continue;
        board.add(b, v, this.firstReason(board, b, key, v));
      }
    }
  }

  /** Budgeted backends: versions nobody wants leave after the minimum residency. */
  private retire(board: PlacementBoard): void {
    for (const b of budgeted(board)) {
      for (const [key, r] of [...b.resident]) {
        const v = board.version(key, r);
        if (v.wanted.length === 0 && v.inFlight === 0 && board.settled(r)) {
          board.remove(b, key, 'retire');
        }
      }
      // A budget lowered below what is resident: evict down to it.
      while (board.freeMb(b) < 0) {
        const victim = this.evictable(board, b, undefined)[0];
        if (!victim) break;
        board.remove(b, victim, 'evict');
      }
    }
  }

  /** Copies beyond what the rate earns leave the fullest backends first. */
  private scaleDown(board: PlacementBoard): void {
    for (const [key, v] of board.versions) {
      if (v.wanted.length === 0 || board.guarded(v)) continue;
      const keep = Math.max(1, this.need(board, v));
      const removable = board
        .holders(key)
        .filter((b) => b.budgetMb !== null && !v.placeWith?.includes(b.address))
        .filter((b) => board.settled(b.resident.get(key)!))
        .sort((a, b) => board.freeMb(a) - board.freeMb(b));
      for (const b of removable) {
        if (board.copies(key) <= keep) break;
        board.remove(b, key, 'scale_down');
      }
    }
  }

  /** Asked for first (oldest first), then guarded, then by rate. */
  private byPriority(board: PlacementBoard): SnapshotVersion[] {
    const rank = (v: SnapshotVersion) =>
      v.wanted.includes('demand')
        ? 0
        : v.wanted.includes('rollout') || v.wanted.includes('pin')
          ? 1
          : 2;
    return [...board.versions.values()]
      .filter((v) => this.need(board, v) > 0 || (v.placeWith?.length ?? 0) > 0)
      .sort(
        (a, b) =>
          rank(a) - rank(b) ||
          b.rate - a.rate ||
          a.model.localeCompare(b.model) ||
          a.version - b.version,
      );
  }

  /** Loads the copies the version lacks; the reason it could not, if any. */
  private placeCopies(board: PlacementBoard, v: SnapshotVersion): string | undefined {
    const key = versionKey(v.model, v.version);
    for (const address of v.placeWith ?? []) {
      const b = board.backends.find((x) => x.address === address);
      if (b && !b.resident.has(key) && !this.makeRoom(board, b, v)) {
        return `no room for ${v.mb} MB on ${address}, where its predecessor is resident`;
      }
      if (b && !b.resident.has(key)) board.add(b, v, 'wanted');
    }
    while (board.copies(key) < this.need(board, v)) {
      const target = this.target(board, v);
      if (!target) return this.noRoom(board, v);
      const reason = board.copies(key) > 0 ? 'scale_up' : this.firstReason(board, target, key, v);
      this.makeRoom(board, target, v);
      board.add(target, v, reason);
    }
    return undefined;
  }

  /** Wanted versions with no copy and no traffic: loaded where they fit without evicting. */
  private aheadOfUse(board: PlacementBoard): void {
    for (const [key, v] of board.versions) {
      if (v.wanted.length === 0 || board.copies(key) > 0) continue;
      const b = budgeted(board)
        .filter((x) => board.freeMb(x) >= v.mb)
        .sort((x, y) => board.freeMb(y) - board.freeMb(x))[0];
      if (b) board.add(b, v, 'wanted');
    }
  }

  /** The backend a new copy goes to: room (after evicting) first, then most free, least load. */
  private target(board: PlacementBoard, v: SnapshotVersion): BoardBackend | undefined {
    const key = versionKey(v.model, v.version);
    return board.backends
      .filter((b) => !b.resident.has(key) && (b.budgetMb === null || b.budgetMb >= v.mb))
      .filter((b) => board.freeMb(b) + this.evictableMb(board, b, v) >= v.mb)
      .sort((a, b) => board.freeMb(b) - board.freeMb(a) || board.load(a) - board.load(b))[0];
  }

  /** Evicts least recently used versions until `v` fits; false when it cannot. */
  private makeRoom(board: PlacementBoard, b: BoardBackend, v: SnapshotVersion): boolean {
    if (board.freeMb(b) + this.evictableMb(board, b, v) < v.mb) return false;
    for (const key of this.evictable(board, b, v)) {
      if (board.freeMb(b) >= v.mb) break;
      board.remove(b, key, 'evict');
    }
    return true;
  }

  /** What may leave `b` to make room for `v`, least recently used first. */
  private evictable(
    board: PlacementBoard,
    b: BoardBackend,
    v: SnapshotVersion | undefined,
  ): string[] {
    const forKey = v ? versionKey(v.model, v.version) : '';
    // A waiting request does not wait out the minimum residency (that hysteresis is for copies
    // following traffic): it may take the room of any copy that has served since its load.
    const forDemand = v?.wanted.includes('demand') === true;
    return (
      [...b.resident.entries()]
        .filter(([key]) => key !== forKey)
        .map(([key, r]) => ({ key, r, other: board.version(key, r) }))
        .filter(({ r, other }) => board.settled(r) || (forDemand && board.usedSinceLoad(r, other)))
        .filter(({ key, other }) => {
          if (board.guarded(other)) return false;
          // A waiting request takes the least recently used room. Otherwise only what is
          // unwanted, a spare copy or a strictly quieter version makes room, and a version evicted
          // this pass evicts nothing: no chain of swaps among equally busy versions.
          if (!v || v.wanted.includes('demand') || other.wanted.length === 0) return true;
          if (board.evicted.has(versionKey(v.model, v.version))) return false;
          return board.copies(key) > 1 || other.rate < v.rate;
        })
        // Idle versions (no request in the rate window) go first, least recently used first.
        // Among versions with traffic the quietest goes first: under a miss storm a tail
        // version just loaded for one request is used more recently than a hot one carrying a
        // steady share, and plain recency would evict the hot set (LRU with frequency, as
        // LRU-K caches do). The copy loaded earliest never goes first on a tie.
        .sort(
          (x, y) =>
            Number(x.other.rate > 0) - Number(y.other.rate > 0) ||
            (x.other.rate > 0 ? x.other.rate - y.other.rate : 0) ||
            x.other.lastUsedAt - y.other.lastUsedAt ||
            x.r.since - y.r.since,
        )
        .map(({ key }) => key)
    );
  }

  private evictableMb(board: PlacementBoard, b: BoardBackend, v: SnapshotVersion): number {
    return this.evictable(board, b, v).reduce(
      (sum, key) => sum + (b.resident.get(key)?.mb ?? 0),
      0,
    );
  }

  /** Why a version's first copy on a backend is loaded. */
  private firstReason(
    board: PlacementBoard,
    b: BoardBackend,
    key: string,
    v: SnapshotVersion,
  ): PlacementReason {
    if (v.wanted.includes('demand') && board.copies(key) === 0) return 'demand';
    if (board.lost.has(key) && board.copies(key) === 0) return 'replace';
    // An unbudgeted backend that just appeared gets everything, like one that restarted.
    if (b.previously.has(key) || (!b.known && b.budgetMb === null)) return 'restore';
    return 'wanted';
  }

  private noRoom(board: PlacementBoard, v: SnapshotVersion): string {
    const budgets = budgeted(board).map((b) => b.budgetMb as number);
    if (board.backends.length === 0) return 'no alive backend';
    if (budgets.length > 0 && budgets.every((mb) => mb < v.mb)) {
      return `needs ${v.mb} MB, more than every budget (largest ${Math.max(...budgets)} MB)`;
    }
    return `needs ${v.mb} MB; no alive backend without it has that much free after evicting what may go`;
  }
}

function budgeted(board: PlacementBoard): BoardBackend[] {
  return board.backends.filter((b) => b.budgetMb !== null);
}
