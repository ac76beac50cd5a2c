import { timingSafeEqual } from 'node:crypto';
import { UnauthenticatedError, type RoutingTable, type Tenant } from '@mesh/routing';
import { bearerKey, sha256Bytes } from './api-key';

/** Anything that can hand out the current table (RoutingTableCache does). */
export interface RoutingTableSource {
  current(): RoutingTable;
}

interface KeyEntry {
  hash: Buffer;
  tenant: Tenant;
}

/**
 * Maps a bearer key to its tenant. The presented key is hashed and compared against every
 * stored hash with timingSafeEqual, without stopping at the first match, so timing reveals
 * neither whether nor where a key matched. Every failure is the same UnauthenticatedError.
 */
export class TenantAuthenticator {
  private indexedTable: RoutingTable | null = null;
  private entries: KeyEntry[] = [];

  constructor(private readonly source: RoutingTableSource) {}

  authenticate(authorization: string | readonly string[] | undefined): Tenant {
    const key = bearerKey(authorization);
    if (key === undefined) throw new UnauthenticatedError();
    const presented = sha256Bytes(key);
    let found: Tenant | undefined;
    for (const entry of this.keyEntries()) {
      if (timingSafeEqual(presented, entry.hash) && found === undefined) found = entry.tenant;
    }
    if (!found) throw new UnauthenticatedError();
    return found;
  }

  /** Hash buffers are rebuilt only when the table object changes (a new epoch). */
  private keyEntries(): readonly KeyEntry[] {
    const table = this.source.current();
    if (table !== this.indexedTable) {
      this.entries = table.tenants.flatMap((tenant) =>
        tenant.keySha256.map((hex) => ({ hash: Buffer.from(hex, 'hex'), tenant })),
      );
      this.indexedTable = table;
    }
    return this.entries;
  }
}
