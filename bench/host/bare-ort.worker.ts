/**
 * The bare floor's worker thread: one ORT session, a run per message, the logits back
 * (transferred). No validation, statistics or batching: what any server must do to keep
 * `session.run` off its event loop. Only relative/package imports: this file runs compiled.
 */
import { parentPort, workerData } from 'node:worker_threads';
import {
  createSession,
  feedsOf,
  type BareResult,
  type BareRun,
  type BareWorkerInit,
} from './bare-ort.session';

async function main(port: NonNullable<typeof parentPort>): Promise<void> {
  const session = await createSession(workerData as BareWorkerInit);
  const output = session.outputNames[0]!;
  port.on('message', (job: BareRun) => {
    void (async () => {
      const out = (await session.run(feedsOf(job)))[output]!;
      const copy = new Float32Array(out.data as Float32Array);
      const reply: BareResult = { name: output, dims: [...out.dims], buffer: copy.buffer };
      port.postMessage(reply, [copy.buffer]);
    })();
  });
  port.postMessage('ready');
}

if (parentPort) void main(parentPort);
