import { Server, ServerCredentials } from '@grpc/grpc-js';
import { ServerGrpc, type GrpcOptions } from '@nestjs/microservices';

type Options = Required<GrpcOptions>['options'];

/**
 * Nest's gRPC transport, except that it keeps the port bindAsync resolved: with port 0
 * (tests, `npm run up`) the stock server binds a free port but never tells anyone which.
 */
export class MeshGrpcServer extends ServerGrpc {
  private port = 0;

  constructor(
    private readonly meshOptions: Options,
    private readonly maxMessageBytes: number,
  ) {
    super(meshOptions);
  }

  /** Replaces ServerGrpc.createClient (same channel options) to capture the bound port. */
  override async createClient(): Promise<Server> {
    const server = new Server({
      'grpc.max_send_message_length': this.maxMessageBytes,
      'grpc.max_receive_message_length': this.maxMessageBytes,
    });
    this.port = await new Promise<number>((resolve, reject) =>
      server.bindAsync(
        this.meshOptions.url ?? '127.0.0.1:50051',
        ServerCredentials.createInsecure(),
        (err, port) => (err ? reject(err) : resolve(port)),
      ),
    );
    return server;
  }

  /**
   * Stops taking calls and lets in-flight ones finish, but never longer than `drainMs` (kept
   * below runMain's shutdown deadline); stragglers are then cancelled.
   */
  override async close(drainMs = 5000): Promise<void> {
    const server = this.grpcClient as Server | undefined;
    if (!server) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        server.forceShutdown();
        resolve();
      }, drainMs);
      server.tryShutdown(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  /** The bound port once listening (0 before). */
  boundPort(): number {
    return this.port;
  }
}
