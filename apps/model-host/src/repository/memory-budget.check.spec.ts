import {
  budgetRefusalMessage,
  checkMemoryBudget,
  type IncomingVersion,
} from './memory-budget.check';

const v = (version: string, mb: number, declared = true): IncomingVersion => ({
  model: 'intent-zh',
  version,
  mb,
  declared,
});

describe('checkMemoryBudget', () => {
  it('lets everything in without a budget', () => {
    expect(
      checkMemoryBudget({ budgetMb: undefined, usedMb: 1e9, freedMb: 0, incoming: [v('1', 1e9)] }),
    ).toBeUndefined();
  });

  it('admits a load that lands exactly on the budget', () => {
    expect(
      checkMemoryBudget({ budgetMb: 300, usedMb: 200, freedMb: 0, incoming: [v('2', 100)] }),
    ).toBeUndefined();
  });

  it('refuses the first version that would pass the budget, with the used sum before it', () => {
    expect(
      checkMemoryBudget({
        budgetMb: 300,
        usedMb: 100,
        freedMb: 0,
        incoming: [v('1', 150), v('2', 100), v('3', 10)],
      }),
    ).toEqual({
      model: 'intent-zh',
      version: '2',
      footprintMb: 100,
      declared: true,
      usedMb: 250,
      budgetMb: 300,
    });
  });

  it('counts versions the same load retires as freed', () => {
    // Serving v1 (200 MB) of a 300 MB budget; a load of only v2 (250 MB) retires v1.
    const q = { budgetMb: 300, usedMb: 200, incoming: [v('2', 250)] };
    expect(checkMemoryBudget({ ...q, freedMb: 200 })).toBeUndefined();
    expect(checkMemoryBudget({ ...q, freedMb: 0 })).toMatchObject({ version: '2', usedMb: 200 });
  });

  it('says model, version, footprint, used and budget in the refusal', () => {
    const refusal = checkMemoryBudget({
      budgetMb: 512,
      usedMb: 480,
      freedMb: 0,
      incoming: [v('3', 52, false)],
    });
    expect(budgetRefusalMessage(refusal!)).toBe(
      "loading model 'intent-zh' version 3 needs 52 MB (estimated), but 480 MB of the memory " +
        'budget of 512 MB (MODEL_HOST_MEMORY_BUDGET_MB) is in use: 532 MB would exceed it; ' +
        'unload a version first',
    );
  });
});
