import * as grpc from '@grpc/grpc-js';
import { loadInferencePackage } from './inference-proto-loader';
import { refuseUndecodableRequests } from './undecodable-request.hook';

/** Bytes that cannot be a protobuf message: field 1 claims 127 bytes and has none. */
const JUNK = Buffer.from([0x0a, 0x7f]);

const identity = (b: Buffer) => b;

/** A server-streaming method whose request decoder refuses anything but an empty message. */
const strictStream: grpc.ServiceDefinition = {
  Watch: {
    path: '/test.Strict/Watch',
    requestStream: false,
    responseStream: true,
    requestSerialize: identity,
    requestDeserialize: (b: Buffer) => {
      if (b.length > 0) throw new Error('not empty');
      return {};
    },
    responseSerialize: identity,
    responseDeserialize: identity,
  },
};

describe('refuseUndecodableRequests', () => {
  let server: grpc.Server;
  let client: grpc.Client;
  let calls = 0;

  beforeAll(async () => {
    server = new grpc.Server();
    refuseUndecodableRequests(server, (path, reason) => ({
      code: grpc.status.INVALID_ARGUMENT,
      details: `bad ${path}: ${reason}`,
    }));
    const pkg = loadInferencePackage();
    server.addService(pkg.inferenceService, {
      ServerLive: (_call: unknown, cb: grpc.sendUnaryData<unknown>) => {
        calls++;
        cb(null, { live: true });
      },
    });
    server.addService(strictStream, {
      Watch: (call: grpc.ServerWritableStream<unknown, unknown>) => {
        calls++;
        call.end();
      },
    });
    const port = await new Promise<number>((resolve, reject) =>
      server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, p) =>
        err ? reject(err) : resolve(p),
      ),
    );
    client = new grpc.Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
  });

  afterAll(() => {
    client.close();
    server.forceShutdown();
  });

  function unary(path: string, bytes: Buffer): Promise<grpc.ServiceError | null> {
    return new Promise((resolve) =>
      client.makeUnaryRequest(path, identity, identity, bytes, (err) => resolve(err)),
    );
  }

  it('answers junk bytes of a unary method with the given status, never reaching the handler', async () => {
    const before = calls;
    const err = await unary('/inference.GRPCInferenceService/ServerLive', JUNK);
    expect(err?.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(err?.details).toContain('bad /inference.GRPCInferenceService/ServerLive');
    expect(calls).toBe(before);
  });

  it('still serves a well-formed request', async () => {
    const before = calls;
    await expect(
      unary('/inference.GRPCInferenceService/ServerLive', Buffer.alloc(0)),
    ).resolves.toBeNull();
    expect(calls).toBe(before + 1);
  });

  it('ends a server-streaming call on junk with the status', async () => {
    const status = await new Promise<grpc.StatusObject | grpc.ServiceError>((resolve) => {
      const call = client.makeServerStreamRequest('/test.Strict/Watch', identity, identity, JUNK);
      call.on('data', () => undefined);
      call.on('error', resolve);
    });
    expect(status.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(status.details).toBe('bad /test.Strict/Watch: not empty');
  });
});
