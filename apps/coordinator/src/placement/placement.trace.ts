import {
  endSpan,
  SpanKind,
  startChildSpan,
  startRemoteChildSpan,
  tracingEnabled,
  type Span,
} from '@mesh/telemetry';
import type { CarriedOut, PlannedChange } from './placement-policy.types';

/**
 * The placer's spans (docs/observability.md, "Tracing"). A pass runs every second and nearly
 * always decides nothing, so only a pass (or a rollout's retire) with changes gets a trace.
 */

/**
 * The root of a pass that decided changes, started when the pass did (`performance.now()`);
 * undefined when tracing is off or nothing was decided.
 */
export function placementSpan(
  name: 'placement.pass' | 'placement.retire',
  startTime: number,
  changes: readonly PlannedChange[],
  attributes: Record<string, string | number> = {},
): Span | undefined {
  if (changes.length === 0 || !tracingEnabled()) return undefined;
  return startPlacementSpan(name, startTime, changes, attributes);
}

/** Runs `work`, ending `span` (if any) with the changes' outcome or the error it threw. */
export async function tracedChanges(
  span: Span | undefined,
  work: () => Promise<CarriedOut[]>,
): Promise<CarriedOut[]> {
  if (!span) return work();
  try {
    const done = await work();
    endPlacementSpan(span, done);
    return done;
  } catch (err: unknown) {
    endSpan(span, 'error', err instanceof Error ? err.message : String(err));
    throw err;
  }
}

function startPlacementSpan(
  name: 'placement.pass' | 'placement.retire',
  startTime: number,
  changes: readonly PlannedChange[],
  attributes: Record<string, string | number> = {},
): Span {
  return startRemoteChildSpan(name, undefined, {
    kind: SpanKind.INTERNAL,
    startTime,
    attributes: {
      'mesh.placement.loads': changes.filter((c) => c.action === 'load').length,
      'mesh.placement.unloads': changes.filter((c) => c.action === 'unload').length,
      ...attributes,
    },
  });
}

/** Ends the pass: `placement_failed` (status ERROR) when any change failed. */
function endPlacementSpan(span: Span, done: readonly CarriedOut[]): void {
  const failed = done.filter((c) => c.error).length;
  span.setAttribute('mesh.placement.failed', failed);
  endSpan(
    span,
    failed > 0 ? 'placement_failed' : 'ok',
    failed > 0 ? `${failed} failed` : undefined,
  );
}

/** One load or unload, from its repository call's start (`placement.load` / `.unload`). */
export function startChangeSpan(parent: Span, c: PlannedChange): Span {
  return startChildSpan(`placement.${c.action}`, parent, {
    attributes: {
      'mesh.backend': c.backend,
      'mesh.model': c.model,
      'mesh.version': c.version,
      'mesh.placement.reason': c.reason,
      'mesh.placement.mb': c.mb,
    },
  });
}

/** Ends a change with its outcome: `ok`, or `error` with the call's message. */
export function endChangeSpan(span: Span, c: CarriedOut): void {
  endSpan(span, c.error ? 'error' : 'ok', c.error);
}
