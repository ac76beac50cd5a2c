import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';

/** Lower-case hex sha256 of a file, streamed so large model files never sit in memory. */
export async function sha256File(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}
