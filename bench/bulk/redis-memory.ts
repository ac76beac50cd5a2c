import { createRedis, closeRedis } from '@mesh/config';

/**
 * `used_memory` of the Redis the mesh uses (REDIS_URL), for peak-memory sampling, and its pid
 * when it runs on this machine (a loopback URL), for its CPU time.
 */
export function createClient(): {
  usedMemory(): Promise<number>;
  localPid(): Promise<number | undefined>;
  close(): Promise<void>;
} {
  const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const redis = createRedis('commands', { url, name: 'bench-bulk' });
  return {
    usedMemory: async () => Number(/used_memory:(\d+)/.exec(await redis.info('memory'))?.[1] ?? 0),
    localPid: async () => {
      if (!['127.0.0.1', 'localhost', '[::1]'].includes(new URL(url).hostname)) return undefined;
      const pid = /process_id:(\d+)/.exec(await redis.info('server'))?.[1];
      return pid === undefined ? undefined : Number(pid);
    },
    close: async () => {
      await closeRedis(redis);
    },
  };
}
