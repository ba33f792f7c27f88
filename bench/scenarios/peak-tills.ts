import http from 'node:http';
import { BASKET_LINES } from './requests';

/**
 * The tills of the peak-day scenario: each rings up checkouts on its own
 * schedule, one at a time, half of them with points (QR code -> hold ->
 * payment with its receipt), and does what the cashier API tells a till to
 * do when refused (bench/scenarios/peak.ts runs them and reads the results).
 */

export interface Answer {
  status: number;
  /** The problem code of a refusal, if any. */
  code?: string;
  body: Record<string, unknown>;
  ms: number;
  retryAfterS?: number;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 1024 });

/** One request as a till sends it; never rejects on a status (a connection error is status 0). */
export function tillRequest(base: string, method: 'GET' | 'POST', path: string, token: string, body?: unknown, key?: string): Promise<Answer> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const headers: Record<string, string> = { Authorization: `Bearer ${token}` };
  if (payload !== undefined) Object.assign(headers, { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(payload)) });
  if (key) headers['Idempotency-Key'] = key;
  const t0 = performance.now();
  return new Promise((resolve) => {
    const req = http.request(`${base}/pos/v1${path}`, { method, headers, agent }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (text += d));
      res.on('end', () => {
        let parsed: Record<string, unknown>;
        try {
          parsed = text ? (JSON.parse(text) as Record<string, unknown>) : {};
        } catch {
          parsed = { text: text.slice(0, 200) };
        }
        const retryAfter = Number(res.headers['retry-after']);
        resolve({
          status: res.statusCode ?? 0,
          code: typeof parsed.code === 'string' ? parsed.code : undefined,
          body: parsed,
          ms: performance.now() - t0,
          retryAfterS: Number.isFinite(retryAfter) ? retryAfter : undefined,
        });
      });
    });
    req.on('error', (err) => resolve({ status: 0, code: err.message, body: {}, ms: performance.now() - t0 }));
    req.end(payload);
  });
}

/** What the till was told about one payment id, in the end. */
export interface PaymentTold {
  paymentId: string;
  customerId: string;
  /** Whether it named a held redemption (else a plain sale). */
  withRedemption: boolean;
  /** 201 `recorded` (with its figures), 202 `queued` (with its outbox id), or refused (the last status). */
  told: 'recorded' | 'queued' | 'refused';
  status: number;
  outboxId?: string;
  pointsRedeemed?: number;
}

export interface Checkout {
  till: number;
  /** What the customer wanted. */
  kind: 'points' | 'plain';
  customerId: string;
  /** Epoch ms. */
  startedAt: number;
  endedAt: number;
  /** The sale was answered 201 or 202 (with points or without). */
  completed: boolean;
  /** Completed with the customer's points. */
  withPoints: boolean;
  startRefused?: string;
  /** The payment naming a placed hold was refused at least once (its status and code). */
  refusedAfterHold?: string;
  /** When that first refusal was answered (epoch ms). */
  refusedAfterHoldAt?: number;
  payments: PaymentTold[];
}

/** Latency samples per cashier action (ms), by the action's name. */
export type Samples = Record<string, number[]>;
/** The statuses each cashier action was answered (a first answer only, not the retries), by the action's name: status -> count. */
export type Statuses = Record<string, Record<string, number>>;
export const ACTIONS = {
  start: 'Start redemption, QR code',
  startRefused: 'Start redemption, refused (503)',
  pointsPayment: 'Payment with redemption (receipt)',
  plainSale: 'Plain sale (receipt)',
} as const;

export interface TillSetup {
  base: string;
  token: string;
  till: number;
  /** Prefix of this run's payment ids. */
  run: string;
  /** The QR code a points customer shows (read before the run). */
  qr(customerId: string): string;
  samples: Samples;
  statuses: Statuses;
  /** Retries of one refused request (the cashier API's advice: the same request, after Retry-After). */
  retries: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** One answer to a till's first request of an action: its time, and its status (with the problem code of a refusal). */
function note(t: TillSetup, action: string, a: Answer): void {
  (t.samples[action] ??= []).push(a.ms);
  const status = a.code && a.status >= 300 ? `${a.status} ${a.code}` : String(a.status);
  const row = (t.statuses[action] ??= {});
  row[status] = (row[status] ?? 0) + 1;
}
let serial = 0;

/** The refusals the cashier API says to retry as they are (its error table): out of reach, busy, or in progress. */
const worthRetrying = (a: Answer) =>
  a.status === 0 || a.status === 429 || a.status >= 500 || (a.status === 409 && (a.code === 'idempotency_request_in_progress' || a.code === 'redemption_busy'));

/** Sends a write again (same body, same Idempotency-Key) after each refusal's Retry-After, up to `retries` times. */
async function withRetries(t: TillSetup, path: string, body: unknown, key: string, action: string): Promise<{ answer: Answer; first: Answer }> {
  let answer = await tillRequest(t.base, 'POST', path, t.token, body, key);
  note(t, action, answer);
  const first = answer;
  for (let i = 0; i < t.retries && worthRetrying(answer); i++) {
    await sleep(Math.min(5000, Math.max(200, (answer.retryAfterS ?? 1) * 1000)));
    answer = await tillRequest(t.base, 'POST', path, t.token, body, key);
  }
  return { answer, first };
}

function told(paymentId: string, customerId: string, withRedemption: boolean, a: Answer): PaymentTold {
  const base = { paymentId, customerId, withRedemption, status: a.status };
  if (a.status === 201) return { ...base, told: 'recorded', pointsRedeemed: typeof a.body.pointsRedeemed === 'number' ? a.body.pointsRedeemed : undefined };
  if (a.status === 202) return { ...base, told: 'queued', outboxId: String(a.body.outboxId) };
  return { ...base, told: 'refused' };
}

async function plainSale(t: TillSetup, c: Checkout): Promise<void> {
  const paymentId = `${t.run}-${t.till}-${++serial}`;
  const body = { customerId: c.customerId, paymentId, totalPaid: 80, totalAmount: 80, lines: BASKET_LINES };
  const { answer } = await withRetries(t, '/payments', body, paymentId, ACTIONS.plainSale);
  c.payments.push(told(paymentId, c.customerId, false, answer));
  c.completed = answer.status === 201 || answer.status === 202;
}

/** One checkout, as a cashier rings it up: with points when asked and the hold is placed, else as a plain sale. */
export async function checkout(t: TillSetup, kind: Checkout['kind'], customerId: string): Promise<Checkout> {
  const c: Checkout = { till: t.till, kind, customerId, startedAt: Date.now(), endedAt: 0, completed: false, withPoints: false, payments: [] };
  if (kind === 'points') {
    const start = await tillRequest(t.base, 'POST', '/redemptions', t.token, { qr: t.qr(customerId), points: 100 }, `${t.run}-s-${t.till}-${++serial}`);
    note(t, start.status === 503 ? ACTIONS.startRefused : ACTIONS.start, start);
    if (start.status === 201 && start.body.state === 'held') {
      const id = String(start.body.id);
      const paymentId = `${t.run}-${t.till}-${++serial}`;
      const body = { customerId, paymentId, totalPaid: 70, totalAmount: 80, redemptionId: id, lines: BASKET_LINES };
      const sentAt = Date.now();
      const { answer, first } = await withRetries(t, '/payments', body, paymentId, ACTIONS.pointsPayment);
      if (first.status !== 201) {
        c.refusedAfterHold = `${first.status} ${first.code ?? ''}`.trim();
        c.refusedAfterHoldAt = sentAt + first.ms;
      }
      c.payments.push(told(paymentId, customerId, true, answer));
      if (answer.status === 201) {
        c.completed = c.withPoints = true;
      } else {
        // The points stay the customer's: the hold is released, and the sale rung up without them.
        await tillRequest(t.base, 'POST', `/redemptions/${id}/void`, t.token, undefined, `${t.run}-v-${t.till}-${++serial}`);
        await plainSale(t, c);
      }
    } else {
      c.startRefused = `${start.status} ${start.code ?? ''}`.trim();
      // No points today: the sale goes on without them.
      await plainSale(t, c);
    }
  } else {
    await plainSale(t, c);
  }
  c.endedAt = Date.now();
  return c;
}

/**
 * Runs one till for `durationMs`: a checkout every `intervalMs` (the first
 * after `offsetMs`), one at a time; a late one starts as soon as the one
 * before ends. Customers come from `nextCustomer` (points customers have a QR
 * code read before the run); `kindOf(n)` says whether the n-th wants points.
 */
export async function runTill(
  t: TillSetup,
  o: {
    startAt: number;
    durationMs: number;
    intervalMs: number;
    offsetMs: number;
    kindOf: (n: number) => Checkout['kind'];
    nextCustomer: (kind: Checkout['kind']) => string | undefined;
  },
): Promise<Checkout[]> {
  const done: Checkout[] = [];
  let due = o.startAt + o.offsetMs;
  for (let n = 0; due < o.startAt + o.durationMs; n++) {
    const wait = due - Date.now();
    if (wait > 0) await sleep(wait);
    let kind = o.kindOf(n);
    let customer = o.nextCustomer(kind);
    if (customer === undefined && kind === 'points') customer = o.nextCustomer((kind = 'plain'));
    if (customer === undefined) break;
    done.push(await checkout(t, kind, customer));
    due += o.intervalMs;
  }
  return done;
}
