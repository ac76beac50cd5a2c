import * as grpc from '@grpc/grpc-js';
import { loadInferencePackage } from '@mesh/kserve';
import { bertInputs, type TokenRow } from './host-bench.corpus';
import type { Step } from './host-bench.driver';

const bytes = (a: BigInt64Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);

/** Load generator for the host: one gRPC channel, `concurrency` closed loops of one row each. */
export class GrpcHostArm {
  private readonly client: grpc.Client & Record<string, unknown>;

  constructor(address: string) {
    const { InferenceClient } = loadInferencePackage();
    this.client = new InferenceClient(address, grpc.credentials.createInsecure(), {
      'grpc.max_send_message_length': 64 * 1024 * 1024,
      'grpc.max_receive_message_length': 64 * 1024 * 1024,
    });
  }

  /** Each loop walks the corpus from its own offset so loops send different lengths. */
  step(corpus: readonly TokenRow[], model: string, loop: number): Step {
    let next = loop * 97;
    return () => {
      const row = corpus[next++ % corpus.length]!;
      const { shape, ids, mask, types } = bertInputs([row]);
      const request = {
        model_name: model,
        inputs: ['input_ids', 'attention_mask', 'token_type_ids'].map((name) => ({
          name,
          datatype: 'INT64',
          shape,
        })),
        raw_input_contents: [bytes(ids), bytes(mask), bytes(types)],
      };
      const t0 = performance.now();
      return new Promise((resolve) => {
        const infer = this.client.ModelInfer as (
          r: unknown,
          cb: (err: grpc.ServiceError | null) => void,
        ) => void;
        infer.call(this.client, request, (err) => {
          const end = performance.now();
          resolve([{ endMs: end, latencyMs: end - t0, ok: err === null }]);
        });
      });
    };
  }

  /** Fails fast when the host did not load a bench model (the bench would only count errors). */
  async checkReady(models: string[]): Promise<void> {
    for (const name of models) {
      const ready = await new Promise<boolean>((resolve) => {
        const call = this.client.ModelReady as (
          r: unknown,
          cb: (e: unknown, v?: { ready: boolean }) => void,
        ) => void;
        call.call(this.client, { name, version: '' }, (_e, v) => resolve(v?.ready === true));
      });
      if (!ready) throw new Error(`the host did not load model '${name}'; see its log`);
    }
  }

  close(): void {
    this.client.close();
  }
}
