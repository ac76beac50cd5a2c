import type { BackendBudgets } from '@mesh/app-config';
import type { BudgetOf } from './placement-ports';

/** Configuration wins over what a backend advertises; neither: no budget. */
export function budgetOf(budgets: BackendBudgets): BudgetOf {
  return (address, advertisedMb) =>
    budgets.byAddress.get(address) ?? budgets.all ?? advertisedMb ?? null;
}
