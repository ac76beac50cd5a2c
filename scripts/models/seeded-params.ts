import { OnnxGraphBuilder } from './onnx-graph.builder';
import { SeededRandom } from './seeded-random';

/**
 * Creates float initializers from a seed. Each tensor draws from its own
 * generator seeded by `<seed>/<tensor name>`, so a tensor's values do not
 * depend on how many tensors were drawn before it.
 */
export class SeededParams {
  constructor(
    private readonly graph: OnnxGraphBuilder,
    private readonly seed: string,
  ) {}

  normal(name: string, dims: number[], std: number, mean = 0): string {
    const values = new Float32Array(dims.reduce((n, d) => n * d, 1));
    SeededRandom.fromText(`${this.seed}/${name}`).fillNormalish(values, std, mean);
    return this.graph.floatInitializer(name, dims, values);
  }

  scalar(name: string, value: number): string {
    return this.graph.floatInitializer(name, [], Float32Array.of(value));
  }
}
