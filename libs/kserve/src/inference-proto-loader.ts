import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

export const INFERENCE_SERVICE_NAME = 'inference.GRPCInferenceService';
export const HEALTH_SERVICE_NAME = 'grpc.health.v1.Health';

/** Every RPC of Triton's GRPCInferenceService, in proto order. */
export const INFERENCE_METHODS = [
  'ServerLive',
  'ServerReady',
  'ModelReady',
  'ServerMetadata',
  'ModelMetadata',
  'ModelInfer',
  'ModelStreamInfer',
  'ModelConfig',
  'ModelStatistics',
  'RepositoryIndex',
  'RepositoryModelLoad',
  'RepositoryModelUnload',
  'SystemSharedMemoryStatus',
  'SystemSharedMemoryRegister',
  'SystemSharedMemoryUnregister',
  'CudaSharedMemoryStatus',
  'CudaSharedMemoryRegister',
  'CudaSharedMemoryUnregister',
  'TraceSetting',
  'LogSettings',
] as const;

export type InferenceMethod = (typeof INFERENCE_METHODS)[number];

/**
 * Loader options shared by every server and client in the mesh. keepCase
 * keeps proto field names (snake_case) so the hand-written types match the
 * wire names; longs: Number is safe for the counters and shapes we read
 * (all far below 2^53); enums as names keep config values readable.
 */
export const PROTO_LOADER_OPTIONS: Readonly<protoLoader.Options> = {
  keepCase: true,
  longs: Number,
  enums: String,
  defaults: true,
  oneofs: true,
};

const MARKER = join('inference', 'grpc_service.proto');

/**
 * Finds the repository's `proto/` directory: `MESH_PROTO_DIR` when set,
 * otherwise the first ancestor of `startDir` holding
 * `proto/inference/grpc_service.proto`. Works from sources (ts-jest/swc) and
 * from `dist/libs/kserve/src/` alike.
 */
export function resolveProtoDir(
  env: NodeJS.ProcessEnv = process.env,
  startDir: string = __dirname,
): string {
  const fromEnv = env.MESH_PROTO_DIR;
  if (fromEnv) {
    const dir = resolve(fromEnv);
    if (!existsSync(join(dir, MARKER))) {
      throw new Error(`MESH_PROTO_DIR=${fromEnv}: ${join(dir, MARKER)} does not exist`);
    }
    return dir;
  }
  let dir = resolve(startDir);
  for (;;) {
    const candidate = join(dir, 'proto');
    if (existsSync(join(candidate, MARKER))) return candidate;
    const parent = dirname(dir);
    if (parent === dir) {
      throw new Error(
        `cannot find proto/${MARKER} above ${startDir}; set MESH_PROTO_DIR to the proto directory`,
      );
    }
    dir = parent;
  }
}

export interface InferencePackage {
  protoDir: string;
  packageDefinition: protoLoader.PackageDefinition;
  /** For `server.addService(...)`. */
  inferenceService: grpc.ServiceDefinition;
  healthService: grpc.ServiceDefinition;
  /** Client constructors: `new InferenceClient(address, credentials, options)`. */
  InferenceClient: grpc.ServiceClientConstructor;
  HealthClient: grpc.ServiceClientConstructor;
}

const cache = new Map<string, InferencePackage>();

/** Loads (once per proto dir) the inference and health services from proto/. */
export function loadInferencePackage(protoDir: string = resolveProtoDir()): InferencePackage {
  const cached = cache.get(protoDir);
  if (cached) return cached;
  const packageDefinition = protoLoader.loadSync(
    ['inference/grpc_service.proto', 'grpc/health/v1/health.proto'],
    // grpc_service.proto imports "model_config.proto" as Triton does, so its
    // own directory is an include dir too.
    { ...PROTO_LOADER_OPTIONS, includeDirs: [protoDir, join(protoDir, 'inference')] },
  );
  const root = grpc.loadPackageDefinition(packageDefinition);
  const InferenceClient = lookup(root, INFERENCE_SERVICE_NAME);
  const HealthClient = lookup(root, HEALTH_SERVICE_NAME);
  const loaded: InferencePackage = {
    protoDir,
    packageDefinition,
    inferenceService: InferenceClient.service,
    healthService: HealthClient.service,
    InferenceClient,
    HealthClient,
  };
  cache.set(protoDir, loaded);
  return loaded;
}

function lookup(root: grpc.GrpcObject, fullName: string): grpc.ServiceClientConstructor {
  let node: unknown = root;
  for (const part of fullName.split('.')) {
    node = (node as Record<string, unknown> | undefined)?.[part];
  }
  if (typeof node !== 'function' || !('service' in node)) {
    throw new Error(`service ${fullName} not found in the loaded protos`);
  }
  return node as grpc.ServiceClientConstructor;
}
