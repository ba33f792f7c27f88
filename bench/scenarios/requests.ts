import { randomBytes } from 'node:crypto';
import { API_PREFIX } from '../../src/contract';
import { LoadRequest, percentile, Probe } from '../lib/load';

/**
 * The request sequences autocannon sends. Every request is unique where the
 * product needs it to be (payment ids, idempotency keys, customers), built in
 * setupRequest; the first refused answer's body is kept to explain a failure.
 */
const RUN = randomBytes(3).toString('hex');
let serial = 0;
const next = () => ++serial;

export const failures = { sample: undefined as string | undefined };
function noteFailure(status: number, body: string): void {
  if ((status < 200 || status >= 300) && failures.sample === undefined) failures.sample = `${status} ${body.slice(0, 500)}`;
}

const JSON_HEADERS = { 'Content-Type': 'application/json' };
const LINES = [
  { serviceId: 'sku-1', name: 'Coffee beans 1kg', amount: 50, category: ['grocery'] },
  { serviceId: 'sku-2', name: 'Mug', amount: 30, tax: 4.2 },
];

/** The basket's lines as a till sends them (80.00 in all). */
export const BASKET_LINES = LINES;

/**
 * A till's cashier payment (POST /pos/v1/payments), as the floor and the BFF
 * receive it: a basket of 80.00, all paid in money unless `extra` takes
 * something off (a redemption or a coupon of 10.00: `totalPaid: 70`).
 */
export function cashierPayment(customerId: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { customerId, paymentId: `bench-${RUN}-${next()}`, totalPaid: 80, totalAmount: 80, totalTax: 4.2, lines: LINES, ...extra };
}

/**
 * Scenarios 1 and 2: one payment per request, unique payment id and
 * Idempotency-Key, from the tills in turn (no tokens: the floor has no auth).
 * `receipt: 'none'` asks the BFF to answer after the payment alone, one
 * upstream call as through the floor; the default receipt adds two reads
 * after it (balance and tier progress), which the floor does not make.
 */
export function paymentRequests(tokens: string[] = [], opts: { idempotencyKey?: boolean; receipt?: 'none' | 'full' } = {}): LoadRequest[] {
  const withKey = opts.idempotencyKey ?? true;
  return [
    {
      method: 'POST',
      path: opts.receipt === 'none' ? '/pos/v1/payments?receipt=none' : '/pos/v1/payments',
      setupRequest: (req) => {
        const n = next();
        const auth = tokens.length ? { Authorization: `Bearer ${tokens[n % tokens.length]}` } : {};
        req.headers = { ...JSON_HEADERS, ...auth, ...(withKey ? { 'Idempotency-Key': `bench-${RUN}-${n}` } : {}) };
        req.body = JSON.stringify(cashierPayment(`bench-c${n % 10_000}`));
        return req;
      },
      onResponse: noteFailure,
    },
  ];
}

/** Checkouts completed and their latency (redemption sent -> payment answered), per run. */
let checkoutLatencies: number[] = [];
let checkoutStart = 0;
export const checkoutFigures: Probe = {
  reset(): void {
    checkoutLatencies = [];
    checkoutStart = performance.now();
  },
  read(): Record<string, number> {
    const s = Float64Array.from(checkoutLatencies).sort();
    const seconds = (performance.now() - checkoutStart) / 1000;
    return { checkoutsPerSecond: s.length / seconds, checkoutP50: percentile(s, 0.5), checkoutP99: percentile(s, 0.99) };
  },
};

interface CheckoutContext {
  auth?: string;
  customerId?: string;
  startedAt?: number;
  redemptionId?: string;
}

/**
 * Scenarios 3 and 4: the two-call checkout, by the tills in turn. Start a
 * redemption (hold) for a customer, then pay naming it from the same till.
 * A refused redemption restarts the sequence. `qr`: the customer shows a QR
 * code (customer id and hash; the stub takes any hash), so the start is the
 * hold alone; `typed`: a typed customer id, for a BFF with
 * REDEMPTION_PROOF=none (the sandbox checks the hash, which every hold
 * rotates; a load generator cannot read it first), so the start reads the
 * balance first to refuse an unknown customer, then holds.
 */
export function checkoutRequests(tokens: string[], customers: { prefix: string; count: number }, proof: 'qr' | 'typed'): LoadRequest[] {
  return [
    {
      method: 'POST',
      path: '/pos/v1/redemptions',
      setupRequest: (req, context) => {
        const ctx = context as CheckoutContext;
        const n = next();
        ctx.auth = `Bearer ${tokens[n % tokens.length]}`;
        ctx.customerId = `${customers.prefix}${n % customers.count}`;
        ctx.startedAt = performance.now();
        req.headers = { ...JSON_HEADERS, Authorization: ctx.auth, 'Idempotency-Key': `bench-${RUN}-r${n}` };
        req.body = JSON.stringify(proof === 'qr' ? { qr: `${ctx.customerId}:123456`, points: 100 } : { customerId: ctx.customerId, points: 100 });
        return req;
      },
      onResponse: (status, body, context) => {
        const ctx = context as CheckoutContext;
        noteFailure(status, body);
        if (status === 201) ctx.redemptionId = (JSON.parse(body) as { id: string }).id;
      },
    },
    {
      method: 'POST',
      path: '/pos/v1/payments',
      setupRequest: (req, context) => {
        const ctx = context as CheckoutContext;
        if (!ctx.redemptionId) return null as unknown as typeof req;
        req.headers = { ...JSON_HEADERS, Authorization: ctx.auth as string, 'Idempotency-Key': `bench-${RUN}-p${next()}` };
        req.body = JSON.stringify(cashierPayment(ctx.customerId as string, { redemptionId: ctx.redemptionId, totalPaid: 70 }));
        return req;
      },
      onResponse: (status, body, context) => {
        const ctx = context as CheckoutContext;
        noteFailure(status, body);
        if (status === 201) checkoutLatencies.push(performance.now() - (ctx.startedAt as number));
      },
    },
  ];
}

/** Scenario 6: a v4.0 payment straight to the sandbox, for a random one of `count` seeded customers. */
export function sandboxPaymentRequests(keys: { apiKey: string; secretKey: string }, customers: { prefix: string; count: number }): LoadRequest[] {
  const headers = { ...JSON_HEADERS, apikey: keys.apiKey, secretkey: keys.secretKey };
  return [
    {
      method: 'POST',
      path: `${API_PREFIX}/payments`,
      setupRequest: (req) => {
        req.headers = headers;
        req.body = JSON.stringify({
          customerId: `${customers.prefix}${Math.floor(Math.random() * customers.count)}`,
          paymentId: `bench-${RUN}-${next()}`,
          paymentDate: new Date().toISOString(),
          totalPaid: 80,
          totalAmount: 100,
          channel: 'pos',
          merchant: { uniqueId: 'm-bench', name: 'Bench Retail', branch: { uniqueId: 'branch-bench', name: 'Bench' } },
          paymentDetails: LINES.map((l) => ({ serviceId: l.serviceId, serviceName: l.name, amount: l.amount, tax: l.tax, category: l.category })),
        });
        return req;
      },
      onResponse: noteFailure,
    },
  ];
}
