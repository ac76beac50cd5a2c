import type { BackendLedger, PlacementDecision } from '@mesh/placement';
import { Counter, Gauge, type Registry } from 'prom-client';

/**
 * The placer's metrics in the coordinator's registry (the leader's values; followers show
 * none): loads by reason, LRU evictions, and per backend the MB counted against its budget.
 */
export class PlacementMetrics {
  private readonly loads: Counter<'reason'>;
  private readonly evictions: Counter;
  private readonly ledgerMb: Gauge<'backend'>;
  private readonly budgetMb: Gauge<'backend'>;

  constructor(registry: Registry) {
    this.loads = new Counter({
      name: 'mesh_placement_loads_total',
      help: 'Versions the placer loaded on a backend, by reason',
      labelNames: ['reason'],
      registers: [registry],
    });
    this.evictions = new Counter({
      name: 'mesh_placement_evictions_total',
      help: 'Versions the placer unloaded to make room for a load (least recently used first)',
      registers: [registry],
    });
    this.ledgerMb = new Gauge({
      name: 'mesh_placement_ledger_mb',
      help: 'MB of resident versions the placer counts on a backend',
      labelNames: ['backend'],
      registers: [registry],
    });
    this.budgetMb = new Gauge({
      name: 'mesh_placement_budget_mb',
      help: 'Memory budget of a backend (absent: none)',
      labelNames: ['backend'],
      registers: [registry],
    });
  }

  decided(d: PlacementDecision): void {
    if (d.error) return;
    if (d.action === 'load') this.loads.inc({ reason: d.reason });
    else if (d.reason === 'evict') this.evictions.inc();
  }

  ledger(l: BackendLedger): void {
    this.ledgerMb.set({ backend: l.backend }, l.usedMb);
    if (l.budgetMb === null) this.budgetMb.remove({ backend: l.backend });
    else this.budgetMb.set({ backend: l.backend }, l.budgetMb);
  }
}
