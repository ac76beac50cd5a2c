import type { RedisClient } from '@mesh/config';
import { PlacementKeys } from './placement.keys';
import type { PlacementDecision } from './placement.types';

/** How many decisions the audit stream keeps (approximately: trimmed with `MAXLEN ~`). */
export const AUDIT_MAX_ENTRIES = 10_000;

/**
 * The placement audit: every load and unload the placer decided, one stream entry each (a
 * `json` field holding the {@link PlacementDecision}). The placer appends; the dashboard, the
 * benchmark and operators (`XREVRANGE`) read.
 */
export class PlacementAudit {
  private readonly key: string;

  constructor(
    private readonly redis: RedisClient,
    keyPrefix: string,
  ) {
    this.key = new PlacementKeys(keyPrefix).audit();
  }

  async append(decision: PlacementDecision): Promise<void> {
    await this.redis.xadd(
      this.key,
      'MAXLEN',
      '~',
      String(AUDIT_MAX_ENTRIES),
      '*',
      'json',
      JSON.stringify(decision),
    );
  }

  /** The newest `count` decisions, newest first. */
  async recent(count: number): Promise<PlacementDecision[]> {
    return decisionsOf(await this.redis.xrevrange(this.key, '+', '-', 'COUNT', count));
  }

  /** Every decision appended from `fromMs` on (stream ids start with their unix ms), oldest first. */
  async since(fromMs: number): Promise<PlacementDecision[]> {
    return decisionsOf(await this.redis.xrange(this.key, String(fromMs), '+'));
  }
}

/** The decisions of stream entries; an entry it cannot read is skipped, never fatal. */
function decisionsOf(rows: [id: string, fields: string[]][]): PlacementDecision[] {
  return rows.flatMap(([, fields]) => {
    const at = fields.indexOf('json');
    if (at < 0 || at + 1 >= fields.length) return [];
    try {
      return [JSON.parse(fields[at + 1]!) as PlacementDecision];
    } catch {
      return [];
    }
  });
}
