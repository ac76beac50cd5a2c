/**
 * `KSERVE_BACKEND_BUDGETS_MB`: one number for every backend, or `address=MB` pairs separated
 * by commas (`host-a:8001=2048,host-b:8001=1024`). Empty: each backend's advertised budget.
 */
export interface BackendBudgets {
  all?: number;
  byAddress: Map<string, number>;
}

/** The parsed value, or the problem with it (naming the entry). */
export function parseBackendBudgets(raw: string): BackendBudgets | { problem: string } {
  const text = raw.trim();
  if (text === '') return { byAddress: new Map() };
  if (!text.includes('=')) {
    const all = positive(text);
    return all === undefined
      ? { problem: `'${text}' is not a positive number of MB` }
      : { all, byAddress: new Map() };
  }
  const byAddress = new Map<string, number>();
  for (const entry of text.split(',').map((e) => e.trim())) {
    const at = entry.lastIndexOf('=');
    const address = entry.slice(0, at).trim();
    const mb = positive(entry.slice(at + 1));
    if (at <= 0 || address === '' || mb === undefined) {
      return { problem: `entry '${entry}' is not address=MB with a positive MB` };
    }
    if (byAddress.has(address)) return { problem: `backend '${address}' is listed twice` };
    byAddress.set(address, mb);
  }
  return { byAddress };
}

function positive(text: string): number | undefined {
  const n = Number(text.trim());
  return text.trim() !== '' && Number.isFinite(n) && n > 0 ? n : undefined;
}
