import { execFile } from 'node:child_process';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { certFactory, CertFactory } from '../security/support/certs';

/** The image's HEALTHCHECK (src/platform/healthcheck.ts) follows the BFF's TLS settings. */
const SCRIPT = path.join(__dirname, '../../src/platform/healthcheck.ts');
const TSX = path.join(__dirname, '../../node_modules/tsx/dist/loader.mjs');

function check(env: Record<string, string>): Promise<number> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', `file://${TSX}`, SCRIPT], { env: { PATH: process.env.PATH ?? '', ...env }, timeout: 10_000 }, (err) =>
      resolve(err ? ((err as { code?: number }).code ?? 1) : 0),
    );
  });
}

describe('container healthcheck', () => {
  let certs: CertFactory;
  const servers: http.Server[] = [];
  beforeAll(() => {
    certs = certFactory();
  });
  afterAll(() => {
    for (const s of servers) s.close();
    certs.cleanup();
  });
  const listen = (s: http.Server) =>
    new Promise<number>((resolve) => {
      servers.push(s);
      s.listen(0, '127.0.0.1', () => resolve((s.address() as AddressInfo).port));
    });
  const healthz = (req: http.IncomingMessage, res: http.ServerResponse) => {
    res.statusCode = req.url === '/healthz' ? 200 : 404;
    res.end('{}');
  };

  it('uses HTTPS when TLS_CERT_FILE is set, and plain HTTP otherwise', async () => {
    const tlsPort = await listen(https.createServer({ cert: certs.server.cert, key: certs.server.key }, healthz));
    const plainPort = await listen(http.createServer(healthz));
    expect(await check({ PORT: String(tlsPort), TLS_CERT_FILE: certs.server.certFile, TLS_KEY_FILE: certs.server.keyFile })).toBe(0);
    // Plain HTTP against the TLS port is what the old healthcheck did: unhealthy.
    expect(await check({ PORT: String(tlsPort) })).toBe(1);
    expect(await check({ PORT: String(plainPort) })).toBe(0);
  }, 30_000);

  it('checks the address HOST binds, when the BFF binds one address only', async () => {
    const s = http.createServer(healthz);
    servers.push(s);
    const port = await new Promise<number>((resolve) => s.listen(0, '127.0.0.2', () => resolve((s.address() as AddressInfo).port)));
    expect(await check({ PORT: String(port), HOST: '127.0.0.2' })).toBe(0);
    expect(await check({ PORT: String(port) })).toBe(1);
  }, 30_000);

  it('with required client certificates, checks that the port takes connections', async () => {
    const port = await listen(
      https.createServer({ cert: certs.server.cert, key: certs.server.key, ca: certs.ca.cert, requestCert: true, rejectUnauthorized: true }, healthz),
    );
    const mtls = { PORT: String(port), TLS_CERT_FILE: certs.server.certFile, TLS_KEY_FILE: certs.server.keyFile, TLS_CLIENT_CA_FILE: certs.ca.certFile };
    expect(await check(mtls)).toBe(0);
    servers.pop()!.close();
    await new Promise((r) => setTimeout(r, 100));
    expect(await check(mtls)).toBe(1);
  }, 30_000);
});
