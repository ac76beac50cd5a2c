import { createRedis, closeRedis } from '@mesh/config';

/** `used_memory` of the Redis the mesh uses (REDIS_URL), for peak-memory sampling. */
export function createClient(): { usedMemory(): Promise<number>; close(): Promise<void> } {
  const redis = createRedis('commands', {
    url: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    name: 'bench-bulk',
  });
  return {
    usedMemory: async () => Number(/used_memory:(\d+)/.exec(await redis.info('memory'))?.[1] ?? 0),
    close: async () => {
      await closeRedis(redis);
    },
  };
}
