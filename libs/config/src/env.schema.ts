import { statSync } from 'node:fs';
import { z } from 'zod';
import { DEFAULT_REDIS_URL, parseHostPort, type HostPort } from './redis-endpoint';

/** A TCP port from the environment; 0 means "pick any free port". */
export const port = (fallback: number) =>
  z.coerce
    .number({ invalid_type_error: 'must be a number' })
    .int('must be an integer')
    .min(0, 'must be between 0 and 65535')
    .max(65535, 'must be between 0 and 65535')
    .default(fallback);

const redisUrlFormat = z
  .string()
  .refine((v) => /^rediss?:\/\/[^\s]+$/.test(v), 'must be a redis:// or rediss:// URL');

/** A standalone Redis's URL, with the default; apps read it through `redisEnv`. */
export const redisUrl = redisUrlFormat.default(DEFAULT_REDIS_URL);

/** A comma-separated variable's entries (`a, b,c` → a, b, c), trimmed, without empty ones. */
export function commaList(value: string): string[] {
  return value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

/** `host:port,host:port`: Redis Cluster seed nodes or Sentinels (IPv6 as `[::1]:26379`). */
export const hostPorts = z
  .string()
  .transform(commaList)
  .refine((list) => list.length > 0, 'must list at least one host:port')
  .refine(
    (list) => list.every((e) => parseHostPort(e) !== undefined),
    'every entry must be host:port',
  )
  .transform((list) => list.map((e) => parseHostPort(e) as HostPort));

/** `true` or `false`. */
const flag = z
  .enum(['true', 'false'], { message: 'must be true or false' })
  .default('false')
  .transform((v) => v === 'true');

export const keyPrefix = z
  .string()
  .default('mesh')
  .refine((v) => /^[A-Za-z0-9_.:-]{1,64}$/.test(v), 'must be 1-64 characters of [A-Za-z0-9_.:-]');

/** `host:port,host:port` — each KServe v2 gRPC backend. */
export const endpoints = z
  .string()
  .default('127.0.0.1:8001')
  .transform(commaList)
  .refine((list) => list.length > 0, 'must list at least one host:port')
  .refine(
    (list) =>
      list.every((e) => /^[^\s:]+:\d{1,5}$/.test(e) || /^\[[0-9a-fA-F:]+\]:\d{1,5}$/.test(e)),
    'every entry must be host:port',
  );

export const logLevel = z
  .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
  .default('info');

export const positiveInt = (fallback: number, max = Number.MAX_SAFE_INTEGER) =>
  intBetween(1, max).default(fallback);

/** An integer from `min` to `max`; the variable adds its `.default()` or `.optional()`. */
export const intBetween = (min: number, max: number) =>
  z.coerce
    .number({ invalid_type_error: 'must be a number' })
    .int('must be an integer')
    .min(min, `must be at least ${min}`)
    .max(max, `must be at most ${max}`);

/** A share between 0 and 1, e.g. an access log's sample rate. */
export const fraction = (fallback: number) =>
  z.coerce
    .number({ invalid_type_error: 'must be a number' })
    .min(0, 'must be between 0 and 1')
    .max(1, 'must be between 0 and 1')
    .default(fallback);

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/**
 * Path of a PEM file (certificate, key or CA), checked at boot: a typo fails the start with the
 * variable's name instead of the first TLS handshake.
 */
export const pemFile = z.string().refine(isFile, 'no such file').optional();

/** Variables every app reads. */
export const commonEnv = {
  LOG_LEVEL: logLevel,
  HOST: z.string().default('127.0.0.1'),
  /**
   * Longest an HTTP request may take to arrive in full (headers and body); a slower client is
   * cut off with 408. Node's own default, which Fastify turns off unless told.
   */
  HTTP_REQUEST_TIMEOUT_MS: positiveInt(300_000),
  /** Longest the request headers may take to arrive (a slow-headers client is cut off). */
  HTTP_HEADERS_TIMEOUT_MS: positiveInt(10_000),
};

/**
 * Variables of apps that talk to Redis (docs/redis.md). One mode: REDIS_URL (standalone, the
 * default `redis://127.0.0.1:6379` when none is named), REDIS_CLUSTER_NODES (cluster) or
 * REDIS_SENTINELS with REDIS_SENTINEL_MASTER (sentinel); `redisIssues` checks the combination
 * and `redisEndpointOf` turns the values into the one `RedisEndpoint` that `createRedis` takes.
 */
export const redisEnv = {
  REDIS_URL: redisUrlFormat.optional(),
  REDIS_CLUSTER_NODES: hostPorts.optional(),
  REDIS_SENTINELS: hostPorts.optional(),
  REDIS_SENTINEL_MASTER: z
    .string()
    .regex(/^[\x21-\x7E]{1,128}$/, 'must be 1-128 printable characters without spaces')
    .optional(),
  REDIS_SENTINEL_PASSWORD: z.string().optional(),
  /** ACL user and password of the data nodes; credentials in REDIS_URL take precedence. */
  REDIS_USERNAME: z.string().optional(),
  REDIS_PASSWORD: z.string().optional(),
  /** TLS to every Redis node (and Sentinel); `rediss://` turns it on for a standalone URL. */
  REDIS_TLS: flag,
  /** CA (PEM file) of the nodes' certificates, when a private CA signed them. */
  REDIS_TLS_CA: pemFile,
  REDIS_KEY_PREFIX: keyPrefix,
};
