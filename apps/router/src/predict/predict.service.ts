import { performance } from 'node:perf_hooks';
import type { TextInput } from '@mesh/preprocessing';
import type { Tenant } from '@mesh/routing';
import type { InferenceGateway, ServableVersion } from '@mesh/inference';
import { VersionNotResidentError } from '@mesh/kserve';
import { describeError } from '../errors/error-view';
import { BatchTooLargeError } from '../errors/router.errors';
import { AdmissionService } from '../tenancy/admission.service';
import { ChunkedInference } from './chunked-inference';
import type { CoalescedInference } from './coalesced-inference';
import type { ColdStartWaiter } from './cold-start-waiter';
import type {
  CallContext,
  PredictBatchCommand,
  PredictBatchResult,
  PredictCommand,
  PredictResult,
  Prediction,
  TokenizeCommand,
  TokenizeOutcome,
} from './predict-commands';
import { ResponseCacheRegistry } from './response-cache-registry';
import type { SelectedVersion } from '../catalog/route-selector';
import type { RouteSelector } from '../catalog/route-selector';
import type { RouterMetrics } from '../router.metrics';
import { recordStage } from './request.trace';
import type { ShadowMirror } from './shadow-mirror';

type Method = 'predict' | 'predict_batch' | 'tokenize';

/**
 * The predict path: admit the tenant, pick a routable version, tokenize with that version's
 * pinned pipeline, infer on a backend, postprocess. Transport-neutral: HTTP and gRPC
 * controllers call the same methods with validated commands.
 */
export class PredictService {
  private readonly chunks: ChunkedInference;

  constructor(
    private readonly admission: AdmissionService,
    private readonly selector: RouteSelector,
    inference: InferenceGateway,
    private readonly caches: ResponseCacheRegistry,
    private readonly metrics: RouterMetrics,
    private readonly shadows: ShadowMirror,
    private readonly maxBatch: (version: ServableVersion) => number,
    /** Merges concurrent single predicts of a version into shared calls; absent = one call each. */
    coalesced?: CoalescedInference,
    /** Holds requests for a version resident nowhere until it is loaded; absent = no wait. */
    private readonly coldStarts?: Pick<ColdStartWaiter, 'wait' | 'waitAfterMiss'>,
  ) {
    this.chunks = new ChunkedInference(inference, metrics, coalesced);
  }

  predict(ctx: CallContext, tenant: Tenant, cmd: PredictCommand): Promise<PredictResult> {
    const input = inputOf(cmd);
    return this.observe(ctx, tenant, cmd.task, 'predict', [input], async (chosen) => {
      const [prediction] = await this.run(ctx, chosen, [input]);
      return {
        model: chosen.version.model,
        version: chosen.version.version,
        prediction: prediction!,
      };
    });
  }

  predictBatch(
    ctx: CallContext,
    tenant: Tenant,
    cmd: PredictBatchCommand,
  ): Promise<PredictBatchResult> {
    const inputs = cmd.texts.map((text) => ({ text }));
    return this.observe(ctx, tenant, cmd.task, 'predict_batch', inputs, async (chosen) => {
      const limit = this.maxBatch(chosen.version);
      if (cmd.texts.length > limit) throw new BatchTooLargeError(cmd.texts.length, limit);
      const results = await this.run(ctx, chosen, inputs);
      return { model: chosen.version.model, version: chosen.version.version, results };
    });
  }

  tokenize(ctx: CallContext, tenant: Tenant, cmd: TokenizeCommand): Promise<TokenizeOutcome> {
    const input = inputOf(cmd);
    return this.observe(ctx, tenant, cmd.task, 'tokenize', [input], async ({ version }) => {
      const t = version.tokenize(input);
      return {
        model: version.model,
        version: version.version,
        pipeline: version.pipeline,
        tokens: t.tokens,
        inputIds: t.ids,
        attentionMask: t.attentionMask,
        tokenTypeIds: t.typeIds,
        truncated: t.truncated,
      };
    });
  }

  /**
   * Admission, version choice (among the versions that can serve `inputs`), metrics and
   * latency common to every method.
   */
  private async observe<T extends object>(
    ctx: CallContext,
    tenant: Tenant,
    task: string,
    method: Method,
    inputs: readonly TextInput[],
    body: (chosen: SelectedVersion) => Promise<T>,
  ): Promise<T & { latencyMs: number; coldStartMs?: number }> {
    let model = '';
    let version = '';
    let outcome = 'ok';
    let routed = false;
    ctx.served = { tenant: tenant.name, task };
    try {
      const release = await this.admission.admit(tenant);
      try {
        // One text is named by its field (`text`), a batch's by position (`texts[3]`).
        const naming = method === 'predict_batch' ? 'batch' : 'single';
        const selectedFrom = ctx.span ? performance.now() : 0;
        const chosen = this.selector.select(tenant, task, ctx.stickyKey, inputs, naming);
        recordStage(ctx.span, 'route.select', selectedFrom, performance.now(), chosen.version, {
          'mesh.cold': chosen.cold === true,
        });
        model = chosen.version.model;
        version = String(chosen.version.version);
        ctx.served.model = model;
        ctx.served.version = chosen.version.version;
        this.metrics.stage('queue', model, chosen.version.version, sinceSeconds(ctx.receivedAt));
        // A cold start waits before the version counts as routed: a load that outlasts the
        // wait (MODEL_LOADING) is the fleet's state, not the version's error in the signals.
        // The backend call's own deadline starts after the wait.
        let coldStartMs: number | undefined;
        const waitForLoad = async (afterMiss = false) => {
          const waitedFrom = performance.now();
          const v = chosen.version.version;
          if (afterMiss) await this.coldStarts!.waitAfterMiss(model, v, ctx.signal);
          else await this.coldStarts!.wait(model, v, ctx.signal);
          coldStartMs = (coldStartMs ?? 0) + round(performance.now() - waitedFrom);
          recordStage(ctx.span, 'cold_start.wait', waitedFrom, performance.now(), chosen.version);
        };
        if (chosen.cold && this.coldStarts) await waitForLoad();
        this.metrics.routed(model, chosen.version.version);
        routed = true;
        let result: T;
        try {
          result = await body(chosen);
        } catch (err: unknown) {
          // Unloaded between the pick and the call (placement evicted it on every backend that
          // held it): nothing ran, so it is a cold start after all; once.
          if (!(err instanceof VersionNotResidentError) || !this.coldStarts) throw err;
          await waitForLoad(true);
          result = await body(chosen);
        }
        const latencyMs = round(performance.now() - ctx.receivedAt);
        return { ...result, latencyMs, ...(coldStartMs !== undefined ? { coldStartMs } : {}) };
      } finally {
        release();
      }
    } catch (err: unknown) {
      // The code the caller sees (a backend's failure is BAD_BACKEND_RESPONSE, not the raw
      // BACKEND_ERROR), so the traffic signals count it against the version.
      // A caller that left is not the version's failure (its call was cancelled on purpose).
      outcome = ctx.signal?.aborted === true ? 'CLIENT_CLOSED' : describeError(err).code;
      throw err;
    } finally {
      this.metrics.request(
        { transport: ctx.transport, method, tenant: tenant.name, task, model, version, outcome },
        sinceSeconds(ctx.receivedAt),
        routed,
      );
    }
  }

  /**
   * Cache lookups first; only the misses are tokenized and sent in one inference call. A
   * sampled shadow copy goes out after the answer is ready.
   */
  private async run(
    ctx: CallContext,
    chosen: SelectedVersion,
    inputs: TextInput[],
  ): Promise<Prediction[]> {
    const { route, version } = chosen;
    const cache = this.caches.forRoute(route);
    const out: (Prediction | undefined)[] = inputs.map((input) => {
      if (!cache) return undefined;
      const hit = cache.get(version, input.text, input.textPair);
      this.metrics.cacheLookup(version.model, version.version, hit !== undefined);
      return hit;
    });
    const missing = inputs.flatMap((input, i) => (out[i] === undefined ? [i] : []));
    if (missing.length > 0) {
      const fresh = await this.chunks.infer(
        ctx,
        version,
        missing.map((i) => inputs[i]!),
      );
      missing.forEach((index, j) => {
        const prediction = fresh[j]!;
        out[index] = prediction;
        cache?.set(version, inputs[index]!.text, inputs[index]!.textPair, prediction);
      });
    }
    this.metrics.predicted(version.model, version.version, inputs.length);
    const answers = out as Prediction[];
    if (chosen.shadow) this.shadows.mirror(ctx, chosen.shadow, inputs, answers);
    return answers;
  }
}

function inputOf(cmd: PredictCommand | TokenizeCommand): TextInput {
  return cmd.textPair === undefined
    ? { text: cmd.text }
    : { text: cmd.text, textPair: cmd.textPair };
}

function sinceSeconds(start: number): number {
  return (performance.now() - start) / 1000;
}

function round(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}
