import { type DynamicModule, Module, type OnApplicationShutdown } from '@nestjs/common';
import {
  closeRedis,
  createRedis,
  type RedisClient,
  type RedisEndpoint,
  type RedisRole,
} from '@mesh/config';

/** One connection an app needs: the token it is injected by, its role and its name. */
export interface RedisConnectionSpec {
  token: symbol;
  role: RedisRole;
  name: string;
  /** `commands` only: longest wait for one command (see `roleOptions`). */
  commandTimeoutMs?: number;
  /** Opened on its first command (a connection only some runs need). */
  lazyConnect?: boolean;
}

export interface RedisModuleOptions {
  /** Where Redis is: `redisEndpointOf(config)` (standalone, cluster or sentinel). */
  endpoint: RedisEndpoint;
  connections: readonly RedisConnectionSpec[];
}

/** The connections an app opened, so one hook closes them all. */
export class RedisConnections {
  private readonly opened: RedisClient[] = [];

  constructor(private readonly endpoint: RedisEndpoint) {}

  open({ role, name, commandTimeoutMs, lazyConnect }: RedisConnectionSpec): RedisClient {
    const client = createRedis(role, {
      endpoint: this.endpoint,
      name,
      commandTimeoutMs,
      lazyConnect,
    });
    this.opened.push(client);
    return client;
  }

  async closeAll(): Promise<void> {
    await Promise.all(this.opened.map((c) => closeRedis(c)));
  }
}

/**
 * Every Redis connection of an app, provided by token and closed through `closeRedis`. Global:
 * Nest runs a global module's shutdown hook after every other module's, so workers, queues,
 * subscribers and lifecycles have stopped using Redis before it closes.
 */
@Module({})
export class RedisModule implements OnApplicationShutdown {
  constructor(private readonly connections: RedisConnections) {}

  static register({ endpoint, connections }: RedisModuleOptions): DynamicModule {
    return {
      module: RedisModule,
      global: true,
      providers: [
        { provide: RedisConnections, useValue: new RedisConnections(endpoint) },
        ...connections.map((spec) => ({
          provide: spec.token,
          inject: [RedisConnections],
          useFactory: (opened: RedisConnections) => opened.open(spec),
        })),
      ],
      exports: connections.map((spec) => spec.token),
    };
  }

  async onApplicationShutdown(): Promise<void> {
    await this.connections.closeAll();
  }
}
