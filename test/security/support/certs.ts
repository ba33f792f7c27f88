import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * Throwaway certificates made with the openssl CLI for TLS tests: a CA, a
 * server certificate for 127.0.0.1/localhost, and client certificates it
 * signs. EC P-256 keys, valid for a day.
 */
export interface Pem {
  cert: string;
  key: string;
  certFile: string;
  keyFile: string;
}

export interface CertFactory {
  dir: string;
  ca: Pem;
  server: Pem;
  /** A client certificate signed by this factory's CA. */
  client(name: string, opts?: { cn?: string; dnsNames?: string[] }): Pem;
  /** Another CA (one the server does not trust). */
  otherCa(): CertFactory;
  cleanup(): void;
}

function openssl(args: string[], cwd: string): void {
  execFileSync('openssl', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
}

const KEY = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

export function opensslAvailable(): boolean {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

export function certFactory(label = 'Test POS CA', dir = mkdtempSync(path.join(os.tmpdir(), 'posbff-tls-'))): CertFactory {
  const file = (n: string) => path.join(dir, n);
  const pem = (base: string): Pem => ({
    cert: readFileSync(file(`${base}.crt`), 'utf8'),
    key: readFileSync(file(`${base}.key`), 'utf8'),
    certFile: file(`${base}.crt`),
    keyFile: file(`${base}.key`),
  });
  const prefix = label.replace(/\W+/g, '-').toLowerCase();

  openssl(['req', '-x509', ...KEY, '-keyout', `${prefix}-ca.key`, '-out', `${prefix}-ca.crt`, '-days', '1', '-subj', `/CN=${label}`], dir);
  const sign = (base: string, subject: string, ext: string) => {
    writeFileSync(file(`${base}.ext`), ext);
    openssl(['req', '-new', ...KEY, '-keyout', `${base}.key`, '-out', `${base}.csr`, '-subj', subject], dir);
    openssl(
      [
        'x509',
        '-req',
        '-in',
        `${base}.csr`,
        '-CA',
        `${prefix}-ca.crt`,
        '-CAkey',
        `${prefix}-ca.key`,
        '-CAcreateserial',
        '-out',
        `${base}.crt`,
        '-days',
        '1',
        '-extfile',
        `${base}.ext`,
      ],
      dir,
    );
    return pem(base);
  };
  const server = sign(
    `${prefix}-server`,
    '/CN=localhost',
    'basicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\nsubjectAltName=IP:127.0.0.1,DNS:localhost\n',
  );

  return {
    dir,
    ca: pem(`${prefix}-ca`),
    server,
    client(name, opts = {}) {
      const san = opts.dnsNames?.length ? `subjectAltName=${opts.dnsNames.map((d) => `DNS:${d}`).join(',')}\n` : '';
      return sign(`${prefix}-client-${name}`, `/CN=${opts.cn ?? name}`, `basicConstraints=CA:FALSE\nextendedKeyUsage=clientAuth\n${san}`);
    },
    otherCa() {
      return certFactory('Rogue CA', dir);
    },
    cleanup() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
