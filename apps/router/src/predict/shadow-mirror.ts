import { inputCapabilityError, type Prediction, type TextInput } from '@mesh/preprocessing';
import type { InferenceGateway, ServableVersion } from '@mesh/inference';
import type { ShadowSample } from '@mesh/signals';
import type { CallContext } from './predict-commands';
import type { RouterMetrics } from '../router.metrics';

/**
 * Mirrors sampled requests to a route's shadow version after the caller has its answer:
 * never on the caller's latency, at Triton priority 2 so online traffic always goes first,
 * and only ever observed through metrics (outcome and label agreement with the primary) and,
 * with a signal sink, the shared traffic signals a rollout's shadow phase gates on.
 */
export class ShadowMirror {
  private inFlight = 0;

  constructor(
    private readonly inference: InferenceGateway,
    private readonly metrics: RouterMetrics,
    /** Shadow copies allowed at once; beyond it they are dropped (counted), never queued. */
    private readonly maxInFlight = 64,
    /** Where agreement counts go for the coordinator (the router's signal recorder). */
    private readonly signals?: { recordShadow(s: ShadowSample): void },
  ) {}

  mirror(
    ctx: CallContext,
    shadow: ServableVersion,
    inputs: TextInput[],
    primary: Prediction[],
  ): void {
    if (this.inFlight >= this.maxInFlight) {
      this.metrics.shadow(shadow.model, shadow.version, 'DROPPED');
      return;
    }
    this.inFlight++;
    void this.run(ctx, shadow, inputs, primary).finally(() => this.inFlight--);
  }

  /** Resolves once no shadow copy is running (tests, shutdown). */
  idle(): boolean {
    return this.inFlight === 0;
  }

  private async run(
    ctx: CallContext,
    shadow: ServableVersion,
    inputs: TextInput[],
    primary: Prediction[],
  ): Promise<void> {
    try {
      if (inputCapabilityError(shadow, inputs, 'batch') !== undefined) {
        this.metrics.shadow(shadow.model, shadow.version, 'SKIPPED');
        return;
      }
      const rows = shadow.maxBatchSize > 0 ? shadow.maxBatchSize : 1;
      const answers: Prediction[] = [];
      // Sequential chunks: a shadow copy should add as little concurrent load as possible.
      for (let i = 0; i < inputs.length; i += rows) {
        const batch = shadow.encode(inputs.slice(i, i + rows));
        const out = await this.inference.infer(shadow, batch, {
          requestId: ctx.requestId,
          traceparent: ctx.traceparent,
          priority: 2,
        });
        answers.push(...shadow.postprocess(out, batch));
      }
      this.metrics.shadow(shadow.model, shadow.version, 'ok');
      let compared = 0;
      let agreed = 0;
      answers.forEach((a, i) => {
        const p = primary[i];
        if (a.kind === 'classification' && p?.kind === 'classification') {
          this.metrics.shadowAgreement(shadow.model, shadow.version, a.label === p.label);
          compared += 1;
          if (a.label === p.label) agreed += 1;
        }
      });
      const task = ctx.served?.task;
      if (task) {
        const { model, version } = shadow;
        this.signals?.recordShadow({ task, model, version, compared, agreed });
      }
    } catch (err: unknown) {
      const code = (err as { code?: unknown } | null)?.code;
      this.metrics.shadow(shadow.model, shadow.version, typeof code === 'string' ? code : 'ERROR');
    }
  }
}
