/**
 * The bare floor's worker thread: one ORT session, a run per message, the logits back
 * (transferred). No validation, statistics or batching: what any server must do to keep
 * `session.run` off its event loop. Only relative/package imports: this file runs compiled.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { sessionRunner, type BareRun, type BareWorkerInit } from './bare-ort.session';

async function main(port: NonNullable<typeof parentPort>): Promise<void> {
  const run = await sessionRunner(workerData as BareWorkerInit);
  port.on('message', (job: BareRun) => {
    void run(job).then((reply) => port.postMessage(reply, [reply.buffer]));
  });
  port.postMessage('ready');
}

if (parentPort) void main(parentPort);
