import http from 'node:http';
import { loadConfig } from '../../src/platform/config';
import { tlsServerOptions } from '../../src/platform/tls';
import { Stack, startStack } from '../support/e2e';
import { certFactory, CertFactory, opensslAvailable } from './support/certs';
import { rawClient, RawClientOptions, RawResponse } from './support/raw-http';

/**
 * Optional TLS: HTTPS with a configured certificate, and client certificates
 * (mTLS) as an alternative to bearer tokens. A verified client certificate
 * whose subject CN, or one of its DNS subject alternative names, is a terminal
 * id of the terminals file authenticates as that terminal. Certificates are
 * made here with the openssl CLI.
 */
let certs: CertFactory;
let rogue: CertFactory;
beforeAll(() => {
  expect(opensslAvailable()).toBe(true);
  certs = certFactory();
  rogue = certs.otherCa();
});
afterAll(() => certs?.cleanup());

async function get(s: Stack, path: string, o: RawClientOptions & { token?: string } = {}): Promise<RawResponse> {
  const c = rawClient(s.bff.url, { ca: certs.ca.cert, ...o });
  try {
    return await c.send({ method: 'GET', path, headers: o.token ? { Authorization: `Bearer ${o.token}` } : {} });
  } finally {
    c.close();
  }
}

describe('HTTPS with a configured certificate', () => {
  let s: Stack;
  beforeAll(async () => {
    s = await startStack({ store: 'memory', env: { TLS_CERT_FILE: certs.server.certFile, TLS_KEY_FILE: certs.server.keyFile } });
    await s.seed('tls-alice', 5);
  });
  afterAll(async () => {
    await s?.close();
  });

  it('serves the cashier API over HTTPS to a client that trusts the CA; bearer tokens as usual', async () => {
    expect(s.bff.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const ok = await get(s, '/pos/v1/customers/tls-alice', { token: s.tokens.cashier });
    expect(ok.status).toBe(200);
    expect((ok.json as { customerId: string }).customerId).toBe('tls-alice');
    expect((await get(s, '/pos/v1/customers/tls-alice')).status).toBe(401);
  });

  it('is refused by a client that does not trust the certificate, and does not speak plain HTTP', async () => {
    const untrusted = await get(s, '/healthz', { ca: rogue.ca.cert });
    expect(untrusted.status).toBe(0);
    expect(untrusted.error).toMatch(/certificate|self.signed|UNABLE_TO_VERIFY/i);
    const plain = await new Promise<string>((resolve) => {
      const req = http.get(`http://127.0.0.1:${s.bff.port}/healthz`, (res) => resolve(`HTTP ${res.statusCode}`));
      req.on('error', (e) => resolve(`error ${(e as NodeJS.ErrnoException).code}`));
    });
    expect(plain).not.toBe('HTTP 200');
  });

  it('answers a client certificate with nothing special when no client CA is configured (bearer still needed)', async () => {
    const cashierCert = certs.client('till-cashier');
    expect((await get(s, '/pos/v1/customers/tls-alice', { cert: cashierCert.cert, key: cashierCert.key })).status).toBe(401);
  });
});

describe('client certificates required (TLS_CLIENT_CA_FILE)', () => {
  let s: Stack;
  beforeAll(async () => {
    s = await startStack({
      store: 'memory',
      env: {
        TLS_CERT_FILE: certs.server.certFile,
        TLS_KEY_FILE: certs.server.keyFile,
        TLS_CLIENT_CA_FILE: certs.ca.certFile,
        AUTH_FAILURE_LIMIT_PER_MINUTE: '0',
      },
    });
    await s.seed('tls-alice', 5);
  });
  afterAll(async () => {
    await s?.close();
  });

  it("authenticates the terminal named by the subject CN, with that terminal's role and store", async () => {
    const cashier = certs.client('till-cashier');
    const asCashier = { cert: cashier.cert, key: cashier.key };
    expect((await get(s, '/pos/v1/customers/tls-alice', asCashier)).status).toBe(200);
    const denied = await get(s, '/pos/v1/customers/tls-alice/hash', asCashier);
    expect(denied.status).toBe(403);
    expect(denied.json).toMatchObject({ code: 'role_not_allowed', role: 'cashier' });
    expect(s.logs.some((l) => l.includes('"terminalId":"till-cashier"') && l.includes('/pos/v1/customers/tls-alice'))).toBe(true);
  });

  it('also accepts the terminal id as a DNS subject alternative name', async () => {
    const kiosk = certs.client('kiosk-san', { cn: 'Kiosk tablet by the door', dnsNames: ['kiosk-001'] });
    expect((await get(s, '/pos/v1/customers/tls-alice/hash', { cert: kiosk.cert, key: kiosk.key })).status).toBe(200);
  });

  it('refuses a certificate of a revoked or unknown terminal, or one naming two terminals, with 401 invalid_client_certificate', async () => {
    for (const pem of [certs.client('till-revoked'), certs.client('till-nobody'), certs.client('two', { cn: 'till-cashier', dnsNames: ['till-manager'] })]) {
      const res = await get(s, '/pos/v1/customers/tls-alice', { cert: pem.cert, key: pem.key });
      expect(res.status).toBe(401);
      expect((res.json as { code: string }).code).toBe('invalid_client_certificate');
    }
  });

  it("lets a bearer token ride along only if it is the same terminal's", async () => {
    const cashier = certs.client('till-cashier');
    const both = { cert: cashier.cert, key: cashier.key };
    expect((await get(s, '/pos/v1/customers/tls-alice', { ...both, token: s.tokens.cashier })).status).toBe(200);
    const other = await get(s, '/pos/v1/customers/tls-alice', { ...both, token: s.tokens.manager });
    expect(other.status).toBe(401);
    expect((other.json as { code: string }).code).toBe('credentials_disagree');
  });

  it('ends the handshake for a client without a certificate, or with one from another CA', async () => {
    const none = await get(s, '/healthz', { token: s.tokens.cashier });
    expect(none.status).toBe(0);
    const foreign = rogue.client('till-manager');
    const forged = await get(s, '/pos/v1/customers/tls-alice', { cert: foreign.cert, key: foreign.key });
    expect(forged.status).toBe(0);
    expect(forged.error).toBeDefined();
  });
});

describe('client certificates optional (TLS_CLIENT_CERT_REQUIRED=false)', () => {
  let s: Stack;
  beforeAll(async () => {
    s = await startStack({
      store: 'memory',
      env: {
        TLS_CERT_FILE: certs.server.certFile,
        TLS_KEY_FILE: certs.server.keyFile,
        TLS_CLIENT_CA_FILE: certs.ca.certFile,
        TLS_CLIENT_CERT_REQUIRED: 'false',
      },
    });
    await s.seed('tls-alice', 5);
  });
  afterAll(async () => {
    await s?.close();
  });

  it('takes a certificate or a bearer token; an unverified certificate counts for nothing', async () => {
    const manager = certs.client('till-manager');
    expect((await get(s, '/pos/v1/customers/tls-alice', { cert: manager.cert, key: manager.key })).status).toBe(200);
    expect((await get(s, '/pos/v1/customers/tls-alice', { token: s.tokens.cashier })).status).toBe(200);
    expect((await get(s, '/pos/v1/customers/tls-alice')).status).toBe(401);
    const foreign = rogue.client('till-manager');
    expect((await get(s, '/pos/v1/customers/tls-alice', { cert: foreign.cert, key: foreign.key })).status).toBe(401);
    expect((await get(s, '/pos/v1/customers/tls-alice', { cert: foreign.cert, key: foreign.key, token: s.tokens.kiosk })).status).toBe(403);
  });
});

describe('TLS settings', () => {
  it('wants the certificate and key together, and HTTPS under client certificates; an unreadable file is named', () => {
    expect(() => loadConfig({ TLS_CERT_FILE: certs.server.certFile })).toThrow(/TLS_CERT_FILE and TLS_KEY_FILE: set both or neither/);
    expect(() => loadConfig({ TLS_CLIENT_CA_FILE: certs.ca.certFile })).toThrow(/TLS_CLIENT_CA_FILE: needs TLS_CERT_FILE/);
    const config = loadConfig({ TLS_CERT_FILE: certs.server.certFile, TLS_KEY_FILE: '/nonexistent/key.pem' });
    expect(config.http.tls).toEqual({ certFile: certs.server.certFile, keyFile: '/nonexistent/key.pem', clientCaFile: undefined, clientCertRequired: true });
    expect(() => tlsServerOptions(config.http.tls!)).toThrow(/TLS_KEY_FILE: cannot read \/nonexistent\/key.pem \(ENOENT\)/);
  });
});
