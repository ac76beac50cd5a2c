import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** PEM files of a throwaway CA and the server and client certificates it signed. */
export interface TlsFiles {
  dir: string;
  ca: string;
  serverCert: string;
  serverKey: string;
  clientCert: string;
  clientKey: string;
  remove(): void;
}

const KEY = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

/**
 * Generates, with the `openssl` CLI, a CA plus a server certificate for 127.0.0.1/localhost and
 * a client certificate (for mutual TLS), valid for one day, in a new temporary directory.
 */
export function makeTlsFiles(): TlsFiles {
  const dir = mkdtempSync(join(tmpdir(), 'mesh-tls-'));
  const at = (f: string) => join(dir, f);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' });
  openssl(
    'req', '-x509', ...KEY, '-keyout', at('ca.key'), '-out', at('ca.pem'), '-days', '1',
    '-subj', '/CN=mesh test CA',
    '-addext', 'basicConstraints=critical,CA:TRUE',
    '-addext', 'keyUsage=critical,keyCertSign,cRLSign',
  ); // prettier-ignore
  const sign = (name: string, usage: string) => {
    writeFileSync(
      at(`${name}.ext`),
      `subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=${usage}\n`,
    );
    openssl(
      'req', '-new', ...KEY, '-keyout', at(`${name}.key`), '-out', at(`${name}.csr`),
      '-subj', `/CN=${name}`,
    ); // prettier-ignore
    openssl(
      'x509', '-req', '-in', at(`${name}.csr`), '-CA', at('ca.pem'), '-CAkey', at('ca.key'),
      '-CAcreateserial', '-days', '1', '-out', at(`${name}.pem`), '-extfile', at(`${name}.ext`),
    ); // prettier-ignore
  };
  sign('server', 'serverAuth');
  sign('client', 'clientAuth');
  return {
    dir,
    ca: at('ca.pem'),
    serverCert: at('server.pem'),
    serverKey: at('server.key'),
    clientCert: at('client.pem'),
    clientKey: at('client.key'),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
