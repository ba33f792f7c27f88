import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { LoyaltyClient } from '../../../src/upstream';
import { CircuitBreaker } from '../../../src/upstream/policies';
import { API_KEY, captureLogger, failure, SECRET_KEY } from '../test-upstream';

/**
 * An unreachable loyalty service: the line that says the circuit opened names
 * why (the transport's code) and where (host and port), once per opening, at
 * warn, and never the keys. Real sockets: a closed port, a name that does not
 * resolve, TLS spoken to a plain-HTTP server.
 */
async function closedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function opened(baseUrl: string) {
  const { logger, lines } = captureLogger();
  const breaker = new CircuitBreaker({ failureThreshold: 2, halfOpenAfterMs: 60_000, logger });
  const client = new LoyaltyClient({ baseUrl, apiKey: API_KEY, secretKey: SECRET_KEY, timeoutMs: 5000, retries: 0, logger, policies: [breaker.policy] });
  try {
    for (let i = 0; i < 4; i++) await failure(() => client.balance('c-1'));
  } finally {
    client.close();
  }
  expect(breaker.state).toBe('open');
  const openLines = lines.map((l) => JSON.parse(l)).filter((l) => String(l.msg).startsWith('circuit to the loyalty service opened'));
  // Once per opening: the calls refused while open add nothing.
  expect(openLines).toHaveLength(1);
  for (const l of lines) {
    expect(l).not.toContain(SECRET_KEY);
    expect(l).not.toContain(API_KEY);
  }
  return openLines[0];
}

it('a refused connection: ECONNREFUSED with the host and port', async () => {
  const port = await closedPort();
  const line = await opened(`http://127.0.0.1:${port}`);
  expect(line.level).toBe(40);
  expect(line.cause).toMatchObject({ code: 'ECONNREFUSED', host: '127.0.0.1', port: String(port) });
  expect(line.msg).toBe(`circuit to the loyalty service opened: ECONNREFUSED reaching 127.0.0.1:${port}`);
});

it('a name that does not resolve: the DNS code with the host, and the default port of the scheme', async () => {
  const line = await opened('https://loyalty.no-such-host.invalid/api');
  expect(['ENOTFOUND', 'EAI_AGAIN']).toContain(line.cause.code);
  expect(line.cause).toMatchObject({ host: 'loyalty.no-such-host.invalid', port: '443' });
});

it('TLS spoken to a server that does not speak it: the TLS failure named', async () => {
  const server = http.createServer((_req, res) => res.end('plain'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  try {
    const line = await opened(`https://127.0.0.1:${port}`);
    expect(line.cause).toMatchObject({ host: '127.0.0.1', port: String(port) });
    expect(line.cause.code).toMatch(/^(EPROTO|ERR_SSL_|ECONNRESET)/);
    expect(line.cause.message.length).toBeGreaterThan(0);
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});
