import { Server, ServerCredentials } from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import { ReflectionService } from '@grpc/reflection';
import { ServerGrpc, type GrpcOptions } from '@nestjs/microservices';
import { refuseUndecodableRequests } from '@mesh/kserve';
import { HealthImplementation, protoPath as healthProtoPath } from 'grpc-health-check';
import { RequestValidationError } from '../errors/router.errors';
import { toGrpcError } from './grpc-error.hook';
import { PREDICT_STREAM_PATH } from './predict-stream';

type Options = Required<GrpcOptions>['options'];

/** Told of each unary call refused before its handler: its full path and the error sent. */
export type RefusalListener = (path: string, err: Error) => void;

/** Services the standard health check reports on ('' is the whole server). */
const HEALTH_SERVICES = ['', 'mesh.v1.Predictor'];

/**
 * Nest's gRPC transport, except that it keeps the port bindAsync resolved (with port 0 the
 * stock server binds a free port but never tells anyone which), takes server credentials
 * (TLS), and also serves `grpc.health.v1.Health` and server reflection (v1 and v1alpha) for
 * the Predictor service, so grpcurl, grpc_health_probe and Kubernetes gRPC probes work.
 */
export class MeshGrpcServer extends ServerGrpc {
  private port = 0;
  private refusalListener: RefusalListener = () => undefined;
  private readonly health = new HealthImplementation(
    Object.fromEntries(HEALTH_SERVICES.map((s) => [s, 'NOT_SERVING' as const])),
  );

  constructor(
    private readonly meshOptions: Options,
    private readonly maxMessageBytes: number,
    private readonly credentials: ServerCredentials = ServerCredentials.createInsecure(),
  ) {
    super(meshOptions);
  }

  /** Replaces ServerGrpc.createClient (same channel options) to capture the bound port. */
  override async createClient(): Promise<Server> {
    const server = new Server({
      'grpc.max_send_message_length': this.maxMessageBytes,
      'grpc.max_receive_message_length': this.maxMessageBytes,
    });
    // Bytes that are not the method's message are the caller's INVALID_ARGUMENT (grpc-js says
    // INTERNAL), answered in the mesh's error shape.
    // PredictStream answers such a message on the stream and stays open (see PredictStreams).
    refuseUndecodableRequests(
      server,
      (path, reason) => {
        const err = new RequestValidationError([
          { path: '', message: `not a valid message for ${path}: ${reason}` },
        ]);
        this.refusalListener(path, err);
        return toGrpcError(err);
      },
      { streamsAnsweringInBand: [PREDICT_STREAM_PATH] },
    );
    this.health.addToServer(server);
    const protoPaths = [this.meshOptions.protoPath ?? []].flat();
    const described = loadSync([...protoPaths, healthProtoPath], this.meshOptions.loader ?? {});
    new ReflectionService(described).addToServer(server);
    this.port = await new Promise<number>((resolve, reject) =>
      server.bindAsync(this.meshOptions.url ?? '127.0.0.1:50051', this.credentials, (err, port) =>
        err ? reject(err) : resolve(port),
      ),
    );
    return server;
  }

  /** SERVING once Nest has registered the handlers and the server listens. */
  override listen(callback: (err?: unknown, ...optionalParams: unknown[]) => void): Promise<void> {
    return super.listen((err?: unknown, ...rest: unknown[]) => {
      if (!err) for (const s of HEALTH_SERVICES) this.health.setStatus(s, 'SERVING');
      callback(err, ...rest);
    });
  }

  /**
   * Stops taking calls and lets in-flight ones finish, but never longer than `drainMs` (kept
   * below runMain's shutdown deadline); stragglers are then cancelled.
   */
  override async close(drainMs = 5000): Promise<void> {
    const server = this.grpcClient as Server | undefined;
    if (!server) return;
    for (const s of HEALTH_SERVICES) this.health.setStatus(s, 'NOT_SERVING');
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

  /**
   * Who logs and counts the calls refused here, before any handler (set once the app, and so
   * the metrics, exist: this server is built first).
   */
  onRefusal(listener: RefusalListener): void {
    this.refusalListener = listener;
  }

  /** The bound port once listening (0 before). */
  boundPort(): number {
    return this.port;
  }
}
