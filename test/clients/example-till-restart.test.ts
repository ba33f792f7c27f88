import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { SANDBOX_KEYS, startStack, Stack } from '../support/e2e';

/**
 * clients/example-till.ts killed after it sent its sale and before the answer
 * came back: started again, it sends the same sale with the same key from its
 * journal, gets the first answer replayed, and the sale is paid once.
 */
describe('the example till restarted mid-sale', () => {
  let s: Stack;
  let proxy: http.Server;
  let proxyUrl = '';
  const dir = mkdtempSync(path.join(os.tmpdir(), 'till-journal-'));
  const journal = path.join(dir, 'journal.json');
  const sentKeys: string[] = [];
  let till: ChildProcess | undefined;
  let answered = 0;

  beforeAll(async () => {
    // A loyalty call may take longer than the till's 6 s deadline (the second test's slow sale).
    s = await startStack({ store: 'redis', env: { LOYALTY_TIMEOUT_MS: '15000' } });
    await s.seed('restart-alice', 100);
    // Forwards to the BFF; the first sale's answer arrives while the till is being killed, so it never sees it.
    proxy = http.createServer((req, res) => {
      if (req.method === 'POST') sentKeys.push(String(req.headers['idempotency-key']));
      const upstream = http.request(`${s.bff.url}${req.url}`, { method: req.method, headers: req.headers }, (answer) => {
        if (req.method === 'POST' && answered++ === 0) {
          answer.resume();
          till?.kill('SIGKILL');
          return;
        }
        res.writeHead(answer.statusCode!, answer.headers);
        answer.pipe(res);
      });
      req.pipe(upstream);
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
    proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    till?.kill('SIGKILL');
    // The connection whose answer was swallowed never ends by itself.
    proxy?.closeAllConnections();
    await new Promise((r) => proxy?.close(r));
    await s?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Runs the example till to its end (or its kill): exit code or signal, and what it printed. */
  function runTill(customerId = 'restart-alice'): Promise<{ code: number | null; signal: string | null; out: string }> {
    till = spawn(process.execPath, ['node_modules/tsx/dist/cli.mjs', 'clients/example-till.ts', customerId], {
      env: { ...process.env, BFF: proxyUrl, CASHIER_TOKEN: s.tokens.cashier, TILL_JOURNAL: journal },
    });
    let out = '';
    till.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    till.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    return new Promise((resolve) => till!.on('exit', (code, signal) => resolve({ code, signal, out })));
  }

  it('sends the same key again after the restart, gets the replay, and the sale is paid once', async () => {
    const first = await runTill();
    expect(first.signal).toBe('SIGKILL');
    // The sale and its key were kept before it was sent.
    const kept = JSON.parse(readFileSync(journal, 'utf8')) as { sale: { paymentId: string }; idempotencyKey: string };
    expect(sentKeys).toEqual([kept.idempotencyKey]);

    const second = await runTill();
    expect(second.code).toBe(0);
    expect(second.out).toContain(`sending ${kept.sale.paymentId} again with its key`);
    expect(second.out).toContain(`${kept.sale.paymentId} recorded, earned 25`);
    expect(sentKeys).toEqual([kept.idempotencyKey, kept.idempotencyKey]);
    expect(existsSync(journal)).toBe(false);
    expect(s.sentUpstream().filter((e) => e.method === 'POST' && e.path.endsWith('/payments'))).toHaveLength(1);
    expect((await s.balance('restart-alice')).availablePointsBalance).toBe(125);
  }, 60_000);

  it('after an answer to read (202 pending at its deadline), the next run reads the sale back and never sends it again', async () => {
    await s.seed('restart-bob', 0);
    rmSync(journal, { force: true });
    // Slower than the client's 6 s deadline once: the sale is answered 202 pending, and lands upstream later.
    await s.sandboxAdmin
      .put('/_sandbox/faults')
      .set(SANDBOX_KEYS)
      .send({ rules: [{ operation: 'payment', latencyMs: 9000, times: 1 }] })
      .expect(200);
    const posts = sentKeys.length;
    const first = await runTill('restart-bob');
    expect(first.code).toBe(0);
    expect(first.out).toMatch(/sale-\d+ still running/);
    const kept = JSON.parse(readFileSync(journal, 'utf8')) as { sale: { paymentId: string }; readBack?: { location?: string } };
    expect(kept.readBack?.location).toMatch(/^\/pos\/v1\/answers\//);

    const second = await runTill('restart-bob');
    expect(second.out).toContain(`reading ${kept.sale.paymentId} back`);
    expect(second.out).toContain(`${kept.sale.paymentId} read back: recorded`);
    expect(existsSync(journal)).toBe(false);
    expect(existsSync(`${journal}.tmp`)).toBe(false);
    expect(sentKeys.length - posts).toBe(1);
    expect(
      s.sentUpstream().filter((e) => e.method === 'POST' && e.path.endsWith('/payments') && JSON.stringify(e.body).includes(kept.sale.paymentId)),
    ).toHaveLength(1);
  }, 60_000);
});
