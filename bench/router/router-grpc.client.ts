import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { resolveProtoDir } from '@mesh/kserve';

interface PredictorStub extends grpc.Client {
  predict(
    req: { task: string; text: string },
    md: grpc.Metadata,
    cb: (err: grpc.ServiceError | null) => void,
  ): void;
}

/** mesh.v1.Predictor over one HTTP/2 connection, as a user's grpc-js client would call it. */
export class RouterGrpcClient {
  private readonly stub: PredictorStub;
  private readonly md = new grpc.Metadata();

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

  close(): void {
    this.stub.close();
  }
}
