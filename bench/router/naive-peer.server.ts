/**
 * The peer a team might write instead of the mesh: one Fastify process, the same tokenizer
 * and model, one `session.run` per request, no batching. Same ORT thread budget as the host.
 * Usage: naive-peer.server.ts <models-root> <model> <version> <intra> <inter>
 */
import Fastify from 'fastify';
import * as ort from 'onnxruntime-node';
import { loadBenchModel } from './bench-model.loader';

async function main(): Promise<void> {
  const [root = '.bench-models', model = 'intent-zh', version = '2', intra = '2', inter = '1'] =
    process.argv.slice(2);
  const m = await loadBenchModel(root, model, Number(version));
  const session = await ort.InferenceSession.create(m.modelPath, {
    intraOpNumThreads: Number(intra),
    interOpNumThreads: Number(inter),
    graphOptimizationLevel: 'all',
  });
  const output = m.pre.manifest.postprocess.output;
  const app = Fastify({ bodyLimit: 4 * 1024 * 1024 });
  app.post('/predict', async (request) => {
    const { text } = request.body as { text: string };
    const batch = m.pre.encode([{ text }]);
    const feeds: Record<string, ort.Tensor> = {};
    for (const t of [batch.inputIds, batch.attentionMask, batch.tokenTypeIds]) {
      feeds[t.name] = new ort.Tensor('int64', t.data, t.shape);
    }
    const result = await session.run(feeds);
    const logits = result[output]!;
    const [prediction] = m.pre.postprocess(
      { shape: logits.dims, data: logits.data as Float32Array },
      batch,
    );
    return prediction;
  });
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  process.stdout.write(
    `${JSON.stringify({ event: 'listening', listener: 'http', url: address })}\n`,
  );
}

void main().catch((err: unknown) => {
  process.stderr.write(`naive peer failed: ${String(err)}\n`);
  process.exit(1);
});
