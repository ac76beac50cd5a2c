import { readFileSync } from 'node:fs';
import * as grpc from '@grpc/grpc-js';
import { pemFile, requiredWith, setTogether, type ConfigIssue } from '@mesh/config';

/** PEM files of a gRPC server's TLS: its certificate and key, and a client CA for mutual TLS. */
export interface ServerTlsFiles {
  certFile?: string;
  keyFile?: string;
  /** When set, clients must present a certificate this CA signed. */
  clientCaFile?: string;
}

type TlsVariable<P extends string> = `${P}_TLS_CERT` | `${P}_TLS_KEY` | `${P}_TLS_CLIENT_CA`;

/**
 * The environment of one gRPC server's TLS, e.g. `grpcServerTlsEnv('ROUTER_GRPC')` gives
 * ROUTER_GRPC_TLS_CERT, ROUTER_GRPC_TLS_KEY and ROUTER_GRPC_TLS_CLIENT_CA (each an existing file).
 */
export function grpcServerTlsEnv<P extends string>(
  prefix: P,
): Record<TlsVariable<P>, typeof pemFile> {
  return {
    [`${prefix}_TLS_CERT`]: pemFile,
    [`${prefix}_TLS_KEY`]: pemFile,
    [`${prefix}_TLS_CLIENT_CA`]: pemFile,
  } as Record<TlsVariable<P>, typeof pemFile>;
}

/** Certificate and key come together; a client CA needs both (no mTLS without TLS). */
export function grpcServerTlsIssues(
  config: Readonly<Record<string, unknown>>,
  prefix: string,
): ConfigIssue[] {
  const [cert, key, ca] = ['CERT', 'KEY', 'CLIENT_CA'].map((s) => `${prefix}_TLS_${s}`) as [
    string,
    string,
    string,
  ];
  return [...setTogether(config, cert, key), ...requiredWith(config, ca, [cert, key])];
}

/** The files named by `grpcServerTlsEnv(prefix)`'s variables. */
export function grpcServerTlsFrom(
  config: Readonly<Record<string, unknown>>,
  prefix: string,
): ServerTlsFiles {
  const get = (s: string) => config[`${prefix}_TLS_${s}`] as string | undefined;
  return { certFile: get('CERT'), keyFile: get('KEY'), clientCaFile: get('CLIENT_CA') };
}

/** Plaintext without a certificate; TLS with one, and mutual TLS with a client CA. */
export function createServerCredentials(tls: ServerTlsFiles): grpc.ServerCredentials {
  if (!tls.certFile || !tls.keyFile) return grpc.ServerCredentials.createInsecure();
  const ca = tls.clientCaFile ? readFileSync(tls.clientCaFile) : null;
  return grpc.ServerCredentials.createSsl(
    ca,
    [{ cert_chain: readFileSync(tls.certFile), private_key: readFileSync(tls.keyFile) }],
    ca !== null,
  );
}
