import * as grpc from '@grpc/grpc-js';
import { loadInferencePackage, refuseUndecodableRequests } from '@mesh/kserve';
import type { Logger } from 'pino';
import type { HostAccessLog } from '../core/host-access-log';
import type { ModelHostService } from '../core/model-host.service';
import { HostHealth } from './health.controller';
import { InferenceServicer } from './inference.controller';

/** The KServe v2 gRPC listener (raw grpc-js: no framework between the socket and the servicer). */
export class GrpcServer {
  private readonly server: grpc.Server;
  private readonly inference: InferenceServicer;
  private readonly health: HostHealth;

  constructor(
    host: ModelHostService,
    maxMessageBytes: number,
    logger: Logger,
    access: HostAccessLog,
  ) {
    this.server = new grpc.Server({
      'grpc.max_receive_message_length': maxMessageBytes,
      'grpc.max_send_message_length': maxMessageBytes,
    });
    // Junk bytes are the caller's INVALID_ARGUMENT, not the server's INTERNAL.
    refuseUndecodableRequests(this.server);
    const pkg = loadInferencePackage();
    this.inference = new InferenceServicer(host, logger, access);
    this.server.addService(pkg.inferenceService, this.inference.handlers());
    this.health = new HostHealth(host);
    this.health.addToServer(this.server);
  }

  /** Binds host:port (0 = any free port) and returns the bound port; plaintext by default. */
  listen(
    host: string,
    port: number,
    credentials = grpc.ServerCredentials.createInsecure(),
  ): Promise<number> {
    const address = host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
    return new Promise((resolve, reject) => {
      this.server.bindAsync(address, credentials, (err, bound) => {
        if (err) return reject(err);
        this.health.listening();
        resolve(bound);
      });
    });
  }

  /** Stops accepting calls and waits (up to `deadlineMs`) for running ones. */
  close(deadlineMs: number): Promise<void> {
    // Health checkers and watchers hear NOT_SERVING before the running calls drain.
    this.health.draining();
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.server.forceShutdown();
        resolve();
      }, deadlineMs);
      // Open inference streams (a router keeps one per backend) would hold the shutdown until
      // the deadline: each ends once it has answered what it holds.
      this.inference.endStreams();
      this.server.tryShutdown(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
}
