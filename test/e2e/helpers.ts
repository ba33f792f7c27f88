import { SANDBOX_KEYS, Stack } from '../support/e2e';

/** The sandbox account's hold period (config/sandbox-accounts.json) and one second more. */
export const HOLD_MS = 10 * 60_000;
export const PAST_HOLD_MS = HOLD_MS + 1_000;

/** Polls `check` every 20 ms until it is true; fails after `timeoutMs` (generous for a loaded CI box; usually one sweeper interval). */
export async function waitFor(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 5_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Seeds a customer and places a hold of `points` through the BFF; returns the redemption view. */
export async function heldRedemption(s: Stack, customerId: string, points: number, opts: { seed?: number; instance?: number } = {}) {
  if (opts.seed !== undefined) await s.seed(customerId, opts.seed);
  const hash = await s.hash(customerId);
  const res = await s.pos('cashier', opts.instance ?? 0).post('/redemptions', { customerId, hash, points });
  if (res.status !== 201 || res.body.state !== 'held') throw new Error(`hold for ${customerId}: ${res.status} ${res.text}`);
  return res.body as { id: string; state: string; points: number; amount: number; secondsLeft: number; expiresAt: string };
}

/** Total holds expired (sweep or read) across the stack's BFF instances. */
export function expiredCount(s: Stack): number {
  return s.bffs.reduce((n, b) => n + b.sweeper.expiredCount, 0);
}

/**
 * Every response the tills got and every log line of the run must be free of
 * the loyalty secret key and of every terminal token.
 */
export function expectNoSecrets(s: Stack): void {
  const secrets = [SANDBOX_KEYS.secretkey, ...Object.values(s.tokens)];
  expect(s.responses.length).toBeGreaterThan(5);
  expect(s.logs.length).toBeGreaterThan(5);
  const leaks = [...s.responses, ...s.logs].filter((text) => secrets.some((secret) => text.includes(secret)));
  expect(leaks).toEqual([]);
  // The check itself must be able to fail: the tokens are long random strings, not empty.
  for (const secret of secrets) expect(secret.length).toBeGreaterThan(15);
}
