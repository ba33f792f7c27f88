import { LimitBucket, PUBLISHED_LIMITS, QUOTA_WINDOW_SECONDS, SERVED_OPERATION_BUCKET } from '../../src/contract';
import type { UpstreamCall } from './upstream-calls';

/**
 * What each cashier action costs in calls to the loyalty service, per bucket
 * of the published limits (src/contract/rate-limits.ts), counted at the
 * sandbox (its own record of every v4.0 call it served). The README's table
 * is made from this measurement (`npx tsx bench/call-costs.ts`), and
 * test/e2e/call-costs.test.ts fails when the two differ; the peak-day
 * scenario computes the account's capacity from it. Measured in both ways a
 * sale can be recorded upstream (SALES_RECORDED_AS): as a payment
 * (Transactions POST, beside the holds) and as a tracked order (Orders).
 */

/** SALES_RECORDED_AS: how the BFF sends a sale upstream. */
export type SaleMode = 'payment' | 'order';
export const SALE_MODES: readonly SaleMode[] = ['payment', 'order'];
/** The BFF's setting for `mode`. */
export const saleModeEnv = (mode: SaleMode): Record<string, string> => ({ SALES_RECORDED_AS: mode });

/** How the measurement reaches the product: a till in front of one BFF, and the sandbox behind it. */
export interface CostHarness {
  /** One request as a till sends it (an Idempotency-Key on every POST); the answer's body. Throws unless 2xx. */
  send<T = Record<string, unknown>>(role: 'cashier' | 'manager', method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown): Promise<T>;
  /** A new customer with `points`, through the sandbox's admin API (no v4.0 call). */
  seed(customerId: string, points: number): Promise<void>;
  /** The QR code the customer's app shows now (customer id and current hash). */
  qr(customerId: string): Promise<string>;
  /** Every v4.0 call the sandbox served so far, in the order they finished. */
  calls(): Promise<UpstreamCall[]>;
}

type Send = CostHarness['send'];
const BASKET = [
  { serviceId: 'sku-1', name: 'Coffee beans 1kg', amount: 50, category: ['grocery'] },
  { serviceId: 'sku-2', name: 'Mug', amount: 30, tax: 4.2 },
];
let serial = 0;
const sale = (customerId: string, extra: Record<string, unknown> = {}) => ({
  customerId,
  paymentId: `cost-${process.pid}-${Date.now().toString(36)}-${++serial}`,
  totalPaid: 80,
  totalAmount: 80,
  lines: BASKET,
  ...extra,
});
const started = (h: CostHarness, c: string) => h.qr(c).then((qr) => h.send<{ id: string }>('cashier', 'POST', '/redemptions', { qr, points: 100 }));
const paid = (h: CostHarness, c: string) => h.send<{ paymentId: string }>('cashier', 'POST', '/payments?receipt=none', sale(c));
const refunded = (send: Send, c: string, paymentId: string, query = '') =>
  send('manager', 'POST', `/refunds${query}`, { customerId: c, refundId: `r-${paymentId}${query ? '-n' : ''}`, paymentId, amount: 10 });
const couponBasket = (c: string) => ({ customerId: c, codes: ['WELCOME10'], basketTotal: 80 });

/**
 * A cashier action: `prepare` (not counted) sets up what it needs for a new
 * customer; `act` is the till's request(s) whose upstream calls are counted.
 */
export interface CostAction {
  name: string;
  prepare?(h: CostHarness, customerId: string): Promise<unknown>;
  act(send: Send, customerId: string, prepared: never): Promise<unknown>;
}

const action = <P>(name: string, prepare: ((h: CostHarness, c: string) => Promise<P>) | undefined, act: (send: Send, c: string, p: P) => Promise<unknown>) =>
  ({ name, prepare, act }) as CostAction;

export const COST_ACTIONS: CostAction[] = [
  action('Customer summary (balance, tier, coupons)', undefined, (send, c) => send('cashier', 'GET', `/customers/${c}`)),
  action('Redemption options', undefined, (send) => send('cashier', 'GET', '/redemption-options')),
  action(
    'Start redemption, QR code (hold)',
    (h, c) => h.qr(c),
    (send, _c, qr: string) => send('cashier', 'POST', '/redemptions', { qr, points: 100 }),
  ),
  action(
    'Start redemption by rule, QR code (hold)',
    (h, c) => h.qr(c),
    (send, _c, qr: string) => send('cashier', 'POST', '/redemptions', { qr, ruleId: 'rule_10_off' }),
  ),
  action('Payment with redemption (receipt)', started, (send, c, r) => send('cashier', 'POST', '/payments', sale(c, { redemptionId: r.id, totalPaid: 70 }))),
  action('Payment with redemption, ?receipt=none', started, (send, c, r) =>
    send('cashier', 'POST', '/payments?receipt=none', sale(c, { redemptionId: r.id, totalPaid: 70 })),
  ),
  action(
    'Payment with a rule redemption (receipt)',
    (h, c) => h.qr(c).then((qr) => h.send<{ id: string }>('cashier', 'POST', '/redemptions', { qr, ruleId: 'rule_10_off' })),
    (send, c, r) => send('cashier', 'POST', '/payments', sale(c, { redemptionId: r.id, totalPaid: 70 })),
  ),
  action('Void redemption', started, (send, _c, r) => send('cashier', 'POST', `/redemptions/${r.id}/void`)),
  action('Payment (receipt)', undefined, (send, c) => send('cashier', 'POST', '/payments', sale(c))),
  action('Payment, ?receipt=none', undefined, (send, c) => send('cashier', 'POST', '/payments?receipt=none', sale(c))),
  action('Read a payment back', paid, (send, _c, p) => send('cashier', 'GET', `/payments/${p.paymentId}`)),
  action('Refund by amount (receipt)', paid, (send, c, p) => refunded(send, c, p.paymentId)),
  action('Refund by amount, ?receipt=none', paid, (send, c, p) => refunded(send, c, p.paymentId, '?receipt=none')),
  action(
    'Read a refund back',
    (h, c) => paid(h, c).then((p) => refunded(h.send, c, p.paymentId).then(() => p)),
    (send, _c, p) => send('cashier', 'GET', `/refunds/r-${p.paymentId}`),
  ),
  action('Sale void (receipt)', paid, (send, c, p) => send('manager', 'POST', `/payments/${p.paymentId}/void`, { customerId: c })),
  action('Coupon check', undefined, (send, c) => send('cashier', 'POST', '/coupons/validate', couponBasket(c))),
  action('Coupon lock', undefined, (send, c) => send('cashier', 'POST', '/coupon-locks', couponBasket(c))),
  action(
    'Payment with coupon lock (receipt)',
    (h, c) => h.send<{ id: string }>('cashier', 'POST', '/coupon-locks', couponBasket(c)),
    (send, c, l) => send('cashier', 'POST', '/payments', sale(c, { couponLockId: l.id, totalPaid: 70 })),
  ),
  action(
    'Release a coupon lock',
    (h, c) => h.send<{ id: string }>('cashier', 'POST', '/coupon-locks', couponBasket(c)),
    (send, _c, l) => send('cashier', 'POST', `/coupon-locks/${l.id}/release`),
  ),
  action('Earn preview', undefined, (send, c) => send('cashier', 'POST', '/earn-preview', { customerId: c, totalPaid: 80, lines: BASKET })),
  action('Customer event', undefined, (send, c) => send('cashier', 'POST', '/events', { customerId: c, events: { store_visit: { section: 'coffee' } } })),
  action('Sign-up or profile update', undefined, (send, c) => send('cashier', 'PUT', `/customers/${c}`, { displayName: 'Peak Day' })),
];

export type BucketCounts = Partial<Record<LimitBucket, number>>;
export interface CallCost {
  action: string;
  /** Calls per bucket, those sent after the till's answer (e.g. the hold lookup) included. */
  buckets: BucketCounts;
  /** The operations, in the order they finished. */
  operations: string[];
}

/** Resolves once no new call has been recorded for `quietMs` (background calls after an answer included). */
async function settled(h: CostHarness, quietMs: number): Promise<UpstreamCall[]> {
  let seen = (await h.calls()).length;
  let since = Date.now();
  for (;;) {
    await new Promise((r) => setTimeout(r, 50));
    const calls = await h.calls();
    if (calls.length !== seen) [seen, since] = [calls.length, Date.now()];
    else if (Date.now() - since >= quietMs) return calls;
  }
}

/**
 * Every action once for a new customer (`${prefix}-<n>`, seeded with 1,000
 * points), after the redemption options were read once (not counted), so what
 * the BFF keeps is in its steady state. One action at a time, waiting until
 * the upstream has been quiet for `quietMs` before and after each.
 */
export async function measureCallCosts(h: CostHarness, o: { prefix: string; quietMs?: number; actions?: CostAction[] }): Promise<CallCost[]> {
  const quietMs = o.quietMs ?? 300;
  const costs: CallCost[] = [];
  await h.send('cashier', 'GET', '/redemption-options');
  for (const [i, a] of (o.actions ?? COST_ACTIONS).entries()) {
    const customerId = `${o.prefix}-${i}`;
    await h.seed(customerId, 1000);
    const prepared = await a.prepare?.(h, customerId);
    const before = (await settled(h, quietMs)).length;
    await a.act(h.send, customerId, prepared as never);
    const calls = (await settled(h, quietMs)).slice(before);
    const buckets: BucketCounts = {};
    for (const c of calls) {
      const b = SERVED_OPERATION_BUCKET[c.operation as keyof typeof SERVED_OPERATION_BUCKET];
      buckets[b] = (buckets[b] ?? 0) + 1;
    }
    costs.push({ action: a.name, buckets, operations: calls.map((c) => c.operation) });
  }
  return costs;
}

/** Columns: transaction writes first (what a checkout runs short of), then the other buckets. */
const BUCKETS: LimitBucket[] = ['transactionsWrite', 'transactionsRead', 'customersRead', 'customersWrite', 'coupons', 'events', 'orders', 'others'];

/** Two measurements of one action are the same: the same calls per bucket and the same operations. */
const sameCost = (a: CallCost, b: CallCost) =>
  BUCKETS.every((k) => (a.buckets[k] ?? 0) === (b.buckets[k] ?? 0)) && [...a.operations].sort().join() === [...b.operations].sort().join();

/**
 * The README's table: one row per action and way of recording sales, one
 * column per bucket any action uses. An action that costs the same either way
 * is one row ("either"); one that differs is a row per way ("payment",
 * "order"), in the order of `byMode`.
 */
export function callCostTable(byMode: Partial<Record<SaleMode, CallCost[]>>): string {
  const modes = SALE_MODES.filter((m) => byMode[m]);
  if (!modes.length) throw new Error('no call costs measured');
  const all = modes.flatMap((m) => byMode[m] as CallCost[]);
  const used = BUCKETS.filter((b) => all.some((c) => c.buckets[b]));
  const head = used.map((b) => `${PUBLISHED_LIMITS[b].row} (${PUBLISHED_LIMITS[b].quota} / ${QUOTA_WINDOW_SECONDS} s)`);
  const lines = [`| Cashier action | Sales recorded as | ${head.join(' | ')} | All | Calls |`, `|---|---|${used.map(() => '--:').join('|')}|--:|---|`];
  const row = (c: CallCost, as: string) => {
    const total = Object.values(c.buckets).reduce((n, x) => n + (x ?? 0), 0);
    const cells = used.map((b) => (c.buckets[b] ? String(c.buckets[b]) : '·'));
    return `| ${c.action} | ${as} | ${cells.join(' | ')} | ${total} | ${c.operations.length ? [...c.operations].sort().join(', ') : 'none'} |`;
  };
  for (const c of byMode[modes[0]] as CallCost[]) {
    const each = modes.map((m) => {
      const found = (byMode[m] as CallCost[]).find((x) => x.action === c.action);
      if (!found) throw new Error(`no call cost measured for "${c.action}" with sales recorded as ${m}`);
      return found;
    });
    if (modes.length > 1 && each.every((x) => sameCost(x, c))) lines.push(row(c, 'either'));
    else each.forEach((x, i) => lines.push(row(x, modes[i])));
  }
  return lines.join('\n');
}

export const README_COSTS_START = '<!-- call costs: made by npx tsx bench/call-costs.ts -->';
export const README_COSTS_END = '<!-- end of call costs -->';

/** The README with its call-cost table replaced by `table`. */
export function withCallCostTable(readme: string, table: string): string {
  const start = readme.indexOf(README_COSTS_START);
  const end = readme.indexOf(README_COSTS_END);
  if (start < 0 || end < start) throw new Error(`README.md: the call-cost table's markers are missing (${README_COSTS_START} ... ${README_COSTS_END})`);
  return `${readme.slice(0, start)}${README_COSTS_START}\n${table}\n${readme.slice(end)}`;
}

/** The table as committed in the README (between the markers). */
export function readmeCallCostTable(readme: string): string {
  const start = readme.indexOf(README_COSTS_START);
  const end = readme.indexOf(README_COSTS_END);
  if (start < 0 || end < start) throw new Error('README.md has no call-cost table');
  return readme.slice(start + README_COSTS_START.length, end).trim();
}

/** A checkout's calls per bucket: the sum of its actions' rows. */
export function checkoutCost(costs: CallCost[], actions: string[]): BucketCounts {
  const out: BucketCounts = {};
  for (const name of actions) {
    const row = costs.find((c) => c.action === name);
    if (!row) throw new Error(`no call cost measured for "${name}"`);
    for (const [b, n] of Object.entries(row.buckets) as [LimitBucket, number][]) out[b] = (out[b] ?? 0) + n;
  }
  return out;
}

/** The measurement against running programs: a BFF over HTTP, the sandbox's admin API, and the sandbox's log file. */
export function programHarness(o: {
  bff: string;
  tokens: { cashier: string; manager: string };
  sandbox: string;
  keys: { apiKey: string; secretKey: string };
  calls: () => UpstreamCall[];
}): CostHarness {
  const admin = { apikey: o.keys.apiKey, secretkey: o.keys.secretKey };
  const json = async <T>(res: Response, what: string): Promise<T> => {
    const text = await res.text();
    if (!res.ok) throw new Error(`${what}: ${res.status} ${text.slice(0, 300)}`);
    return (text ? JSON.parse(text) : undefined) as T;
  };
  return {
    async send(role, method, p, body) {
      const headers: Record<string, string> = { Authorization: `Bearer ${o.tokens[role]}` };
      if (body !== undefined) headers['Content-Type'] = 'application/json';
      if (method === 'POST') headers['Idempotency-Key'] = `cost-${process.pid}-${++serial}`;
      const res = await fetch(`${o.bff}/pos/v1${p}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
      return json<never>(res, `${method} ${p}`);
    },
    async seed(customerId, points) {
      const res = await fetch(`${o.sandbox}/_sandbox/customers`, {
        method: 'POST',
        headers: { ...admin, 'Content-Type': 'application/json' },
        body: JSON.stringify({ customerId, points }),
      });
      await json(res, 'seed');
    },
    async qr(customerId) {
      const res = await fetch(`${o.sandbox}/api/v4.0/integrations/customers/${encodeURIComponent(customerId)}/hash`, { headers: admin });
      return `${customerId}:${(await json<{ hash: string }>(res, 'hash')).hash}`;
    },
    calls: async () => o.calls(),
  };
}
