import { budgetFromExtensions } from './memory-footprint';
import { tooLargeReason } from './placement-ledger-reader';
import { PlacementKeys, parseVersionKey, versionKey } from './placement.keys';

describe('placement keys', () => {
  it('puts every key in the {placement} slot under the prefix', () => {
    const k = new PlacementKeys('t1');
    for (const key of [k.demand(), k.footprints(), k.ledger(), k.lastUse(), k.audit()]) {
      expect(key.startsWith('t1:{placement}:')).toBe(true);
    }
    expect(new Set([k.demand(), k.footprints(), k.ledger(), k.lastUse(), k.audit()]).size).toBe(5);
  });

  it('round-trips model@version, model names with @ included', () => {
    expect(parseVersionKey(versionKey('sentiment-en', 3))).toEqual({
      model: 'sentiment-en',
      version: 3,
    });
    expect(parseVersionKey(versionKey('a@b', 12))).toEqual({ model: 'a@b', version: 12 });
    expect(parseVersionKey('no-version')).toBeUndefined();
    expect(parseVersionKey('m@x')).toBeUndefined();
    expect(parseVersionKey('@2')).toBeUndefined();
  });
});

describe('footprints and budgets', () => {
  it('reads the budget a backend advertises, and none when absent or bad', () => {
    expect(budgetFromExtensions(['binary_tensor_data', 'memory_budget_mb=900'])).toBe(900);
    expect(budgetFromExtensions(['binary_tensor_data'])).toBeUndefined();
    expect(budgetFromExtensions(['memory_budget_mb=zero'])).toBeUndefined();
  });
});

describe('tooLargeReason', () => {
  it('names the version, its footprint and the largest budget', () => {
    expect(tooLargeReason('m', 2, 900, 512)).toBe(
      "version 2 of model 'm' needs 900 MB (memory_mb_v2), more than the largest backend budget (512 MB)",
    );
  });

  it('refuses nothing that fits, or when a number is unknown', () => {
    expect(tooLargeReason('m', 2, 512, 512)).toBeUndefined();
    expect(tooLargeReason('m', 2, undefined, 512)).toBeUndefined();
    expect(tooLargeReason('m', 2, 900, null)).toBeUndefined();
  });
});
