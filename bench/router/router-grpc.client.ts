import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { resolveProtoDir } from '@mesh/kserve';

interface StreamAnswer {
  id: string;
  error?: { code: number; meshCode: string; message: string } | null;
}

interface PredictorStub extends grpc.Client {
  predict(
    req: { task: string; text: string },
    md: grpc.Metadata,
    cb: (err: grpc.ServiceError | null) => void,
  ): void;
  predictStream(md: grpc.Metadata): grpc.ClientDuplexStream<object, StreamAnswer>;
}

/**
 * mesh.v1.Predictor over one HTTP/2 connection, as a user's grpc-js client would call it: a
 * unary Predict per request, or (`predictOnStream`) every request on one PredictStream call.
 */
export class RouterGrpcClient {
  private readonly stub: PredictorStub;
  private readonly md = new grpc.Metadata();
  private stream?: grpc.ClientDuplexStream<object, StreamAnswer>;
  private readonly waiting = new Map<string, { resolve: () => void; reject: (e: Error) => void }>();
  private nextId = 1;

  constructor(address: string, apiKey: string) {
    const def = protoLoader.loadSync(join(resolveProtoDir(), 'mesh', 'v1', 'predictor.proto'), {
      keepCase: false,
      longs: Number,
      enums: String,
      defaults: true,
      oneofs: true,
    });
    const pkg = grpc.loadPackageDefinition(def) as unknown as {
      mesh: { v1: { Predictor: new (a: string, c: grpc.ChannelCredentials) => PredictorStub } };
    };
    this.stub = new pkg.mesh.v1.Predictor(address, grpc.credentials.createInsecure());
    this.md.set('authorization', `Bearer ${apiKey}`);
  }

  predict(task: string, text: string): Promise<void> {
    return new Promise((resolve, reject) =>
      this.stub.predict({ task, text }, this.md, (err) => (err ? reject(err) : resolve())),
    );
  }

  /** One request on the client's PredictStream call (opened on first use), matched by id. */
  predictOnStream(task: string, text: string): Promise<void> {
    const stream = (this.stream ??= this.openStream());
    const id = String(this.nextId++);
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      stream.write({ id, request: { task, text } });
    });
  }

  close(): void {
    this.stream?.end();
    this.stub.close();
  }

  private openStream(): grpc.ClientDuplexStream<object, StreamAnswer> {
    const stream = this.stub.predictStream(this.md);
    stream.on('data', (a: StreamAnswer) => {
      const w = this.waiting.get(a.id);
      if (!w) return;
      this.waiting.delete(a.id);
      if (a.error) w.reject(new Error(`${a.error.meshCode}: ${a.error.message}`));
      else w.resolve();
    });
    const failAll = (err: Error) => {
      this.stream = undefined;
      for (const w of this.waiting.values()) w.reject(err);
      this.waiting.clear();
    };
    stream.on('error', failAll);
    stream.on('end', () => failAll(new Error('PredictStream ended')));
    return stream;
  }
}
