import type { ConfigIssue } from './config.errors';
import { requiredWith } from './config-checks';

export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';

export interface HostPort {
  host: string;
  port: number;
}

/** `host:port` or `[v6]:port` → its parts; undefined when it is neither. */
export function parseHostPort(entry: string): HostPort | undefined {
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([^\s:[\]]+)):(\d{1,5})$/.exec(entry);
  if (!m) return undefined;
  const port = Number(m[3]);
  if (port < 1 || port > 65535) return undefined;
  return { host: (m[1] ?? m[2]) as string, port };
}

/** Credentials and TLS of the data nodes, the same in every mode. */
interface RedisAccess {
  /** ACL user and password; a standalone URL's own credentials take precedence. */
  username?: string;
  password?: string;
  /** TLS to every node (and Sentinel); a `rediss://` URL turns it on by itself. */
  tls: boolean;
  /** PEM file of the CA that signed the nodes' certificates, when not a public one. */
  tlsCaFile?: string;
}

/**
 * Where the mesh's Redis is and how to reach it, from the environment (`redisEndpointOf`):
 * one standalone server, a Redis Cluster by its seed nodes, or a primary found through
 * Sentinels by its master name. `createRedis` takes it and opens the right client.
 */
export type RedisEndpoint =
  | ({ mode: 'standalone'; url: string } & RedisAccess)
  | ({ mode: 'cluster'; nodes: readonly HostPort[] } & RedisAccess)
  | ({
      mode: 'sentinel';
      sentinels: readonly HostPort[];
      masterName: string;
      /** AUTH of the Sentinels themselves (they often have none). */
      sentinelPassword?: string;
    } & RedisAccess);

export type RedisMode = RedisEndpoint['mode'];

/** The parsed `redisEnv` values (`env.schema.ts`); every one optional. */
export interface RedisEnvValues {
  REDIS_URL?: string;
  REDIS_CLUSTER_NODES?: readonly HostPort[];
  REDIS_SENTINELS?: readonly HostPort[];
  REDIS_SENTINEL_MASTER?: string;
  REDIS_SENTINEL_PASSWORD?: string;
  REDIS_USERNAME?: string;
  REDIS_PASSWORD?: string;
  REDIS_TLS?: boolean;
  REDIS_TLS_CA?: string;
}

const MODE_VARIABLES = ['REDIS_URL', 'REDIS_CLUSTER_NODES', 'REDIS_SENTINELS'] as const;

/**
 * Problems spanning the Redis variables, for `loadConfig`'s checks: two modes named at once,
 * Sentinels without the master's name (or the other way round), a Sentinel password without
 * Sentinels, a CA without TLS.
 */
export function redisIssues(values: RedisEnvValues): ConfigIssue[] {
  const config: Readonly<Record<string, unknown>> = { ...values };
  const named = MODE_VARIABLES.filter((v) => values[v] !== undefined);
  const issues: ConfigIssue[] = [];
  if (named.length > 1) {
    issues.push({
      variable: named.join(' and '),
      reason:
        'name one Redis mode: REDIS_URL (standalone), REDIS_CLUSTER_NODES (cluster) or ' +
        'REDIS_SENTINELS with REDIS_SENTINEL_MASTER (sentinel)',
    });
  }
  const tls = values.REDIS_TLS === true || values.REDIS_URL?.startsWith('rediss://') === true;
  if (values.REDIS_TLS_CA !== undefined && !tls) {
    issues.push({
      variable: 'REDIS_TLS_CA',
      reason: 'is set, so REDIS_TLS must be true (or REDIS_URL a rediss:// URL)',
    });
  }
  return [
    ...issues,
    ...requiredWith(config, 'REDIS_SENTINELS', ['REDIS_SENTINEL_MASTER']),
    ...requiredWith(config, 'REDIS_SENTINEL_MASTER', ['REDIS_SENTINELS']),
    ...requiredWith(config, 'REDIS_SENTINEL_PASSWORD', ['REDIS_SENTINELS']),
  ];
}

/** The one endpoint the Redis variables name (after `redisIssues` found nothing). */
export function redisEndpointOf(config: RedisEnvValues): RedisEndpoint {
  const access: RedisAccess = {
    ...(config.REDIS_USERNAME === undefined ? {} : { username: config.REDIS_USERNAME }),
    ...(config.REDIS_PASSWORD === undefined ? {} : { password: config.REDIS_PASSWORD }),
    tls: config.REDIS_TLS ?? false,
    ...(config.REDIS_TLS_CA === undefined ? {} : { tlsCaFile: config.REDIS_TLS_CA }),
  };
  if (config.REDIS_CLUSTER_NODES !== undefined) {
    return { mode: 'cluster', nodes: config.REDIS_CLUSTER_NODES, ...access };
  }
  if (config.REDIS_SENTINELS !== undefined) {
    if (config.REDIS_SENTINEL_MASTER === undefined) {
      throw new Error('REDIS_SENTINELS is set, so REDIS_SENTINEL_MASTER must be set too');
    }
    return {
      mode: 'sentinel',
      sentinels: config.REDIS_SENTINELS,
      masterName: config.REDIS_SENTINEL_MASTER,
      ...(config.REDIS_SENTINEL_PASSWORD === undefined
        ? {}
        : { sentinelPassword: config.REDIS_SENTINEL_PASSWORD }),
      ...access,
    };
  }
  return { mode: 'standalone', url: config.REDIS_URL ?? DEFAULT_REDIS_URL, ...access };
}

/** A standalone endpoint from a URL alone (tests, benches). */
export function standaloneEndpoint(url: string): RedisEndpoint {
  return { mode: 'standalone', url, tls: false };
}

/** `host:port`, IPv6 hosts in brackets. */
export function formatHostPort({ host, port }: HostPort): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

/** The hosts an endpoint names first (a standalone URL's host, seed nodes, Sentinels). */
export function redisHosts(endpoint: RedisEndpoint): string[] {
  switch (endpoint.mode) {
    case 'standalone':
      try {
        return [new URL(endpoint.url).hostname.replace(/^\[(.*)\]$/, '$1')];
      } catch {
        return [];
      }
    case 'cluster':
      return endpoint.nodes.map((n) => n.host);
    case 'sentinel':
      return endpoint.sentinels.map((n) => n.host);
  }
}

/** The endpoint for logs and messages, never its credentials. */
export function describeRedisEndpoint(endpoint: RedisEndpoint): string {
  switch (endpoint.mode) {
    case 'standalone': {
      try {
        const u = new URL(endpoint.url);
        return `standalone ${u.protocol}//${u.host}`;
      } catch {
        return 'standalone (URL not parsable)';
      }
    }
    case 'cluster':
      return `cluster ${endpoint.nodes.map(formatHostPort).join(',')}`;
    case 'sentinel':
      return `sentinel master "${endpoint.masterName}" via ${endpoint.sentinels.map(formatHostPort).join(',')}`;
  }
}
