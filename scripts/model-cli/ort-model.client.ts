import * as ort from 'onnxruntime-node';
import type { OnnxSignature, TensorSignature } from '@mesh/model-repository';

/** A float output as the probes read it. */
export interface FloatOutput {
  shape: number[];
  data: Float32Array;
}

/** One INT64 feed, row-major. */
export interface Int64Feed {
  name: string;
  shape: readonly number[];
  data: BigInt64Array;
}

function signatureOf(meta: readonly ort.InferenceSession.ValueMetadata[]): TensorSignature[] {
  return meta.map((m) =>
    m.isTensor
      ? { name: m.name, type: m.type, shape: [...m.shape] }
      : { name: m.name, type: 'non-tensor', shape: [] },
  );
}

/**
 * An exported model opened in onnxruntime-node, as the model host opens it (one session, CPU,
 * all graph optimisations): what its graph declares, and runs of INT64 feeds.
 */
export class OrtModelClient {
  private constructor(private readonly session: ort.InferenceSession) {}

  /** Throws with onnxruntime's own reason when the file is not a loadable ONNX model. */
  static async open(path: string): Promise<OrtModelClient> {
    try {
      const session = await ort.InferenceSession.create(path, {
        intraOpNumThreads: 1,
        interOpNumThreads: 1,
        graphOptimizationLevel: 'all',
        // Errors only: graph-cleanup warnings (unused initializers) are noise to someone publishing.
        logSeverityLevel: 3,
      });
      return new OrtModelClient(session);
    } catch (err: unknown) {
      throw new Error(
        `onnxruntime cannot load ${path}: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
  }

  signature(): OnnxSignature {
    return {
      inputs: signatureOf(this.session.inputMetadata),
      outputs: signatureOf(this.session.outputMetadata),
    };
  }

  async run(feeds: readonly Int64Feed[], output: string): Promise<FloatOutput> {
    const tensors: Record<string, ort.Tensor> = {};
    for (const f of feeds) tensors[f.name] = new ort.Tensor('int64', f.data, [...f.shape]);
    const result = await this.session.run(tensors, [output]);
    const t = result[output];
    if (!t || t.type !== 'float32') {
      throw new Error(`the model returned no float32 output '${output}'`);
    }
    return { shape: [...t.dims], data: t.data as Float32Array };
  }

  async close(): Promise<void> {
    await this.session.release();
  }
}
