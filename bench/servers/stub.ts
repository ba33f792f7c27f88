import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { API_PREFIX } from '../../src/contract';
import { OPERATION_EXAMPLES } from '../../src/sandbox/openapi/examples';
import { reportReady } from '../lib/processes';
import { operationOf, UpstreamCall } from '../lib/upstream-calls';

/**
 * The stub upstream: plain node:http, canned v4.0 answers, no validation and
 * no state beyond counters and the refunds it saw. Its cost is the same for the floor and the BFF,
 * so the difference between them is the BFF's own.
 *
 * `BENCH_UPSTREAM_LATENCY_MS` (default 0): every answer is sent that long
 * after the request arrived, like a loyalty service in the cloud. Then calls
 * whose X-Request-Id starts with `BENCH_RECORD_PREFIX` are recorded (arrival
 * and finish) and listed at `GET /_bench/calls`.
 */
const LATENCY_MS = Number(process.env.BENCH_UPSTREAM_LATENCY_MS ?? 0);
const RECORD_PREFIX = process.env.BENCH_RECORD_PREFIX;

const PAYMENT = JSON.stringify({
  customerId: 'bench-customer',
  redeemedPoints: 100,
  rewardedPoints: 80,
  paymentDetails: [
    { serviceId: 'sku-1', decimalPoints: 50, points: 50 },
    { serviceId: 'sku-2', decimalPoints: 30, points: 30 },
  ],
});
const RELEASED = JSON.stringify({ success: true, message: 'Hold released' });
const NOT_FOUND = JSON.stringify({ code: 4004, type: 'NotFound', message: 'No such route on the bench stub', requestId: 'stub' });
const HOLD_PATH = `${API_PREFIX}/transactions/hold`;
const HOLD_MINUTES = 10;
/** The other operations a cashier action calls, answered with the sandbox's documented examples (test/docs/openapi.test.ts checks them against the v4.0 contract). */
const CANNED: Record<string, string> = Object.fromEntries(
  (
    [
      'balance',
      'tierProgress',
      'coupons',
      'otp',
      'refund',
      'hash',
      'couponValidate',
      'couponRelease',
      'couponBurn',
      'rewardPreview',
      'redemptionConfig',
    ] as const
  ).map((op) => [op, JSON.stringify(OPERATION_EXAMPLES[op]?.response)]),
);
/**
 * Holds for this API key are refused without an OTP, as an account that
 * checks OTPs refuses them (3003, naming the OTP): the BFF in front of it
 * learns to send the code first.
 */
const OTP_API_KEY = 'bench-otp-api-key';
const OTP_REQUIRED = JSON.stringify({ code: 3003, type: 'Payload Error', message: 'An OTP is required for this hold', requestId: 'stub' });
let holds = 0;
let locks = 0;
const recorded: UpstreamCall[] = [];
/** Refunds seen, by the payment they refund: what the order's transactions list (read-back, points given back). */
const refundsOf = new Map<string, { id: string; amount: number }[]>();

/** A coupon lock that ends in the future (the published example's date is long past), one reference per lock. */
function couponLock(): string {
  const ex = OPERATION_EXAMPLES.couponsValidate?.response as Record<string, unknown>;
  locks += 1;
  return JSON.stringify({ ...ex, lockReference: `lock_${process.pid}_${locks}`, dateToExpire: new Date(Date.now() + HOLD_MINUTES * 60_000).toISOString() });
}

/** The order's transactions: the payment's reward, and each refund seen for it. */
function orderTransactions(orderId: string): string {
  const at = new Date().toISOString();
  const transactions = [
    { transactionDate: at, gameballTransactionId: 1, transactionType: 'PaymentReward', amount: 80, transactionId: orderId, equivalentPoints: 80 },
    ...(refundsOf.get(orderId) ?? []).map((r, i) => ({
      transactionDate: at,
      gameballTransactionId: 2 + i,
      transactionType: 'PartialRefund',
      amount: r.amount,
      transactionId: r.id,
      equivalentPoints: Math.round(r.amount),
    })),
  ];
  return JSON.stringify({ transactions, count: transactions.length });
}

function send(res: http.ServerResponse, status: number, body: string): void {
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

function answer(req: http.IncomingMessage, res: http.ServerResponse, body: string): void {
  const url = req.url ?? '';
  if (req.method === 'POST' && url === `${API_PREFIX}/payments`) return send(res, 200, PAYMENT);
  if (req.method === 'POST' && url === HOLD_PATH) {
    if (req.headers.apikey === OTP_API_KEY && !/"otp"\s*:/.test(body)) return send(res, 422, OTP_REQUIRED);
    holds += 1;
    return send(
      res,
      200,
      JSON.stringify({ customerId: 'bench-customer', holdAmount: 10, holdEquivalentPoints: 100, holdReference: `hold_${process.pid}_${holds}` }),
    );
  }
  if (url.startsWith(`${HOLD_PATH}/`)) {
    if (req.method === 'DELETE') return send(res, 200, RELEASED);
    if (req.method === 'GET') {
      const holdReference = decodeURIComponent(url.slice(HOLD_PATH.length + 1));
      const dateToExpire = new Date(Date.now() + HOLD_MINUTES * 60_000).toISOString();
      return send(
        res,
        200,
        JSON.stringify({ holdReference, customerId: 'bench-customer', holdAmount: 10, holdEquivalentPoints: 100, state: 'active', dateToExpire }),
      );
    }
  }
  const operation = operationOf(req.method ?? '', url) ?? '';
  if (operation === 'couponsValidate') return send(res, 200, couponLock());
  if (operation === 'orderTransactions') return send(res, 200, orderTransactions(decodeURIComponent(url.split('/orders/')[1].split('/')[0])));
  if (operation === 'refund') {
    const r = JSON.parse(body) as { refundTransactionId: string; reverseTransactionId: string; refundAmount?: number | null };
    refundsOf.set(r.reverseTransactionId, [...(refundsOf.get(r.reverseTransactionId) ?? []), { id: r.refundTransactionId, amount: r.refundAmount ?? 80 }]);
  }
  const canned = CANNED[operation];
  if (canned) return send(res, 200, canned);
  send(res, 404, NOT_FOUND);
}

const now = () => performance.timeOrigin + performance.now();

function record(req: http.IncomingMessage, res: http.ServerResponse, start: number): void {
  const requestId = req.headers['x-request-id'];
  if (!RECORD_PREFIX || typeof requestId !== 'string' || !requestId.startsWith(RECORD_PREFIX)) return;
  res.once('finish', () => recorded.push({ requestId, operation: operationOf(req.method ?? '', req.url ?? '') ?? req.url ?? '', start, end: now() }));
}

/** Answers at `at` (epoch ms), not before: a timer may fire up to a millisecond early. */
function answerAt(at: number, req: http.IncomingMessage, res: http.ServerResponse, body: string): void {
  const left = at - now();
  if (left > 0) setTimeout(() => answerAt(at, req, res, body), Math.ceil(left));
  else answer(req, res, body);
}

const server = http.createServer((req, res) => {
  if (req.url === '/_bench/calls') return send(res, 200, JSON.stringify(recorded));
  const start = now();
  record(req, res, start);
  // Read the whole body first, as a real service would, then answer (only holds and refunds look at it).
  let body = '';
  req.setEncoding('utf8');
  req.on('data', (d: string) => (body += d));
  req.on('end', () => (LATENCY_MS > 0 ? answerAt(start + LATENCY_MS, req, res, body) : answer(req, res, body)));
});
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => reportReady((server.address() as AddressInfo).port));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
