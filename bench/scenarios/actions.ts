import http from 'node:http';
import { randomBytes } from 'node:crypto';
import { median } from '../lib/load';
import { fixed } from '../lib/report';
import { UpstreamCall, waitedFor, WaitedFor } from '../lib/upstream-calls';
import { BASKET_LINES, cashierPayment } from './requests';

/**
 * Scenario 7: each cashier action at one till, with the upstream a set
 * latency away (the stub's BENCH_UPSTREAM_LATENCY_MS; the sandbox's fault
 * rule `{ operation: '*', latencyMs }`). For every action: the till's wall
 * time, and the upstream calls it waited for, counted from the upstream's
 * own record of each call's arrival and finish (matched by X-Request-Id).
 * The goal is one round trip plus 3 ms.
 */
/** Not a cashier action: the same payment through the floor (Express + axios pass-through), to show what the machine itself adds. */
const FLOOR_ACTION = 'Baseline: payment through the floor (Express + axios pass-through)';
export const ACTIONS = [
  'Customer summary',
  'Redemption options',
  'Start redemption (QR: hold)',
  'Payment with redemption (receipt)',
  'Void redemption',
  'Payment (receipt)',
  'Payment, ?receipt=none',
  'Read a payment back',
  'Refund by amount (receipt)',
  'Refund by amount, ?receipt=none',
  'Read a refund back',
  'Coupon check (validate)',
  'Earn preview',
  'Coupon lock',
  'Payment with coupon lock (receipt)',
  'Sale void (receipt)',
  'Start redemption, OTP account (QR: sends the code)',
  'OTP step (places the hold)',
  FLOOR_ACTION,
] as const;
export type Action = (typeof ACTIONS)[number];

/**
 * Why an action waits for more than one round trip, where the published
 * interface allows no fewer: the bench prints it beside the count.
 */
const RECEIPT_WHY =
  "the receipt's balance and tier can only be read after the write (the published payment and refund answers carry no balance); the reads run side by side; `?receipt=none` answers after the write alone";
const WHY_MORE: Partial<Record<Action, string>> = {
  'Payment with redemption (receipt)': RECEIPT_WHY,
  'Payment (receipt)': RECEIPT_WHY,
  'Payment with coupon lock (receipt)': RECEIPT_WHY,
  'Refund by amount (receipt)': `${RECEIPT_WHY} (the points given back, from the order's transactions, are read beside them)`,
  'Sale void (receipt)': `${RECEIPT_WHY} (the points given back, from the order's transactions, are read beside them)`,
};
/** Actions that may be answered without the upstream (a cache), judged on time alone. */
const MAY_BE_LOCAL: Partial<Record<Action, string>> = {
  'Redemption options': "served from the BFF's copy of the redemption rules (REDEMPTION_OPTIONS_TTL_SECONDS); refreshed upstream after the answer once stale",
};

/** Where the actions go: a BFF in front of an account that does not check OTPs and one in front of an account that does, same upstream. */
export interface ActionTarget {
  name: 'stub' | 'sandbox';
  bff: string;
  bffOtp: string;
  /** The floor server (scenario 1's) in front of the same upstream, if any. */
  floor?: string;
  /** The QR code the customer shows now (the sandbox's current hash, read outside the measured requests; the stub takes any). */
  qr(customerId: string, account: 'plain' | 'otp'): Promise<string>;
  /** The code the customer reads out (the sandbox shows the last one sent; the stub takes any). */
  otpCode(customerId: string): Promise<string>;
  /** Every recorded upstream call so far whose X-Request-Id starts with the run's prefix. */
  calls(): Promise<UpstreamCall[]>;
}

interface Sample {
  action: Action;
  target: ActionTarget['name'];
  requestId: string;
  sentAt: number;
  answeredAt: number;
  wallMs: number;
}

export interface ActionRow {
  action: Action;
  /** Per target: p50 of the till's wall time, and the calls waited for (the most frequent count over the samples). */
  byTarget: Record<
    string,
    {
      wallP50: number;
      wallP99: number;
      calls: number;
      inSequence: number;
      chain: string[];
      operations: string[];
      bffBeforeMs: number;
      bffAfterMs: number;
      roundTripMs: number;
      samples: number;
    }
  >;
  met: boolean;
  verdict: string;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
const epochNow = () => performance.timeOrigin + performance.now();

/** One request from the till; rejects unless 2xx. The caller names the fields it reads from the answer (the BFF's OpenAPI promises them). */
function call<T>(
  base: string,
  method: string,
  path: string,
  token: string,
  requestId: string,
  body?: unknown,
): Promise<{ status: number; body: T; sentAt: number; answeredAt: number; wallMs: number }> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const headers: Record<string, string> = { Authorization: `Bearer ${token}`, 'X-Request-Id': requestId };
  if (payload !== undefined) Object.assign(headers, { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(payload)) });
  if (method === 'POST') headers['Idempotency-Key'] = requestId;
  return new Promise((resolve, reject) => {
    const sentAt = epochNow();
    const t0 = performance.now();
    const req = http.request(`${base}/pos/v1${path}`, { method, headers, agent }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (text += d));
      res.on('end', () => {
        const wallMs = performance.now() - t0;
        const status = res.statusCode ?? 0;
        if (status < 200 || status >= 300) return reject(new Error(`${method} ${path}: ${status} ${text.slice(0, 300)}`));
        resolve({ status, body: (text ? JSON.parse(text) : undefined) as T, sentAt, answeredAt: epochNow(), wallMs });
      });
    });
    req.on('error', reject);
    req.end(payload);
  });
}

/** Runs every action once for customer `customerId` on `t`; returns one sample per action. */
async function oneRound(t: ActionTarget, tokens: { cashier: string; manager: string }, customerId: string, prefix: string, round: number): Promise<Sample[]> {
  const samples: Sample[] = [];
  let n = 0;
  const act = async <T = unknown>(action: Action | undefined, base: string, method: string, path: string, token: string, body?: unknown): Promise<T> => {
    const requestId = `${prefix}${t.name}-${round}-${++n}`;
    const r = await call<T>(base, method, path, token, requestId, body);
    if (action) samples.push({ action, target: t.name, requestId, sentAt: r.sentAt, answeredAt: r.answeredAt, wallMs: r.wallMs });
    return r.body;
  };
  const { cashier, manager } = tokens;
  await act('Customer summary', t.bff, 'GET', `/customers/${customerId}`, cashier);
  await act('Redemption options', t.bff, 'GET', '/redemption-options', cashier);
  const held = await act<{ id: string }>('Start redemption (QR: hold)', t.bff, 'POST', '/redemptions', cashier, {
    qr: await t.qr(customerId, 'plain'),
    points: 100,
  });
  const sale = cashierPayment(customerId, { redemptionId: held.id, totalPaid: 70 });
  await act('Payment with redemption (receipt)', t.bff, 'POST', '/payments', cashier, sale);
  const other = await act<{ id: string }>(undefined, t.bff, 'POST', '/redemptions', cashier, { qr: await t.qr(customerId, 'plain'), points: 100 });
  await act('Void redemption', t.bff, 'POST', `/redemptions/${other.id}/void`, cashier);
  const plain = cashierPayment(customerId);
  await act('Payment (receipt)', t.bff, 'POST', '/payments', cashier, plain);
  await act('Payment, ?receipt=none', t.bff, 'POST', '/payments?receipt=none', cashier, cashierPayment(customerId));
  await act('Read a payment back', t.bff, 'GET', `/payments/${plain.paymentId}`, cashier);
  const refundId = `r-${sale.paymentId}`;
  await act('Refund by amount (receipt)', t.bff, 'POST', '/refunds', manager, { customerId, refundId, paymentId: sale.paymentId, amount: 10 });
  await act('Refund by amount, ?receipt=none', t.bff, 'POST', '/refunds?receipt=none', manager, {
    customerId,
    refundId: `r2-${sale.paymentId}`,
    paymentId: sale.paymentId,
    amount: 10,
  });
  await act('Read a refund back', t.bff, 'GET', `/refunds/${refundId}`, cashier);
  const basket = { customerId, codes: ['WELCOME10'], basketTotal: 80 };
  await act('Coupon check (validate)', t.bff, 'POST', '/coupons/validate', cashier, basket);
  await act('Earn preview', t.bff, 'POST', '/earn-preview', cashier, { customerId, totalPaid: 70, lines: BASKET_LINES });
  const lock = await act<{ id: string }>('Coupon lock', t.bff, 'POST', '/coupon-locks', cashier, basket);
  await act('Payment with coupon lock (receipt)', t.bff, 'POST', '/payments', cashier, cashierPayment(customerId, { couponLockId: lock.id, totalPaid: 70 }));
  await act('Sale void (receipt)', t.bff, 'POST', `/payments/${plain.paymentId}/void`, manager, { customerId });
  const waiting = await act<{ id: string; state: string }>('Start redemption, OTP account (QR: sends the code)', t.bffOtp, 'POST', '/redemptions', cashier, {
    qr: await t.qr(customerId, 'otp'),
    points: 100,
  });
  if (waiting.state !== 'otp_required') throw new Error(`the OTP account's redemption is ${waiting.state}, not otp_required`);
  const otp = await t.otpCode(customerId);
  await act('OTP step (places the hold)', t.bffOtp, 'POST', `/redemptions/${waiting.id}/otp`, cashier, { otp });
  // Not measured: frees the terminal's open-redemption slot.
  await act(undefined, t.bffOtp, 'POST', `/redemptions/${waiting.id}/void`, cashier);
  if (t.floor) await act(FLOOR_ACTION, t.floor, 'POST', '/payments', cashier, cashierPayment(customerId));
  return samples;
}

const mostFrequent = (xs: number[]) => {
  const counts = new Map<number, number>();
  for (const x of xs) counts.set(x, (counts.get(x) ?? 0) + 1);
  return [...counts.entries()].sort((a, b) => b[1] - a[1] || b[0] - a[0])[0]?.[0] ?? NaN;
};

export interface ActionsResult {
  latencyMs: number;
  rounds: number;
  rows: ActionRow[];
  samples: (Sample & WaitedFor)[];
}

/**
 * `rounds` rounds of every action on every target, the targets interleaved,
 * after one warm-up round each (discarded). Customers `${customerPrefix}0..`
 * must exist upstream with enough points.
 */
export async function measureActions(o: {
  targets: ActionTarget[];
  tokens: { cashier: string; manager: string };
  customerPrefix: string;
  requestIdPrefix: string;
  rounds: number;
  latencyMs: number;
  progress: (line: string) => void;
}): Promise<ActionsResult> {
  const samples: Sample[] = [];
  const run = randomBytes(2).toString('hex');
  for (let round = 0; round <= o.rounds; round++) {
    for (const t of round % 2 ? [...o.targets].reverse() : o.targets) {
      const got = await oneRound(t, o.tokens, `${o.customerPrefix}${round}`, `${o.requestIdPrefix}${run}-`, round);
      if (round > 0) samples.push(...got);
    }
    if (round > 0 && (round % 5 === 0 || round === o.rounds)) o.progress(`${round} of ${o.rounds} rounds`);
  }
  // The sandbox writes its log line after the answer: give it a moment.
  await new Promise((r) => setTimeout(r, 300));
  const calls = new Map<string, UpstreamCall[]>();
  for (const t of o.targets) for (const c of await t.calls()) calls.set(c.requestId, [...(calls.get(c.requestId) ?? []), c]);
  const tolerance = o.latencyMs / 2;
  const judged = samples.map((s) => ({ ...s, ...waitedFor(calls.get(s.requestId) ?? [], s.answeredAt, tolerance) }));

  const rows: ActionRow[] = ACTIONS.map((action) => {
    const byTarget: ActionRow['byTarget'] = {};
    for (const t of o.targets) {
      const mine = judged.filter((s) => s.action === action && s.target === t.name);
      if (!mine.length) continue;
      const walls = mine.map((s) => s.wallMs).sort((a, b) => a - b);
      const inSequence = mostFrequent(mine.map((s) => s.inSequence));
      const typical = mine.find((s) => s.inSequence === inSequence);
      byTarget[t.name] = {
        wallP50: median(walls),
        wallP99: walls[Math.min(walls.length - 1, Math.floor(walls.length * 0.99))],
        calls: mostFrequent(mine.map((s) => s.calls)),
        inSequence,
        chain: typical?.chain ?? [],
        operations: typical?.operations ?? [],
        // One round trip as the upstream saw it: the median duration of a call it answered for this action.
        roundTripMs: median(mine.map((s) => (s.inSequence ? s.chainMs / s.inSequence : NaN))),
        samples: mine.length,
        // The till's time outside the upstream: sent -> first call arrived upstream, last call finished -> answered.
        bffBeforeMs: median(mine.map((s) => s.firstStart - s.sentAt)),
        bffAfterMs: median(mine.map((s) => s.answeredAt - s.lastEnd)),
      };
    }
    const judgedRow = action === FLOOR_ACTION ? { met: true, verdict: 'baseline, not judged' } : verdict(action, byTarget, o.latencyMs);
    return { action, byTarget, ...judgedRow };
  });
  return { latencyMs: o.latencyMs, rounds: o.rounds, rows, samples: judged };
}

/**
 * Met: on every target, the till waited for one upstream call in sequence
 * (or none, for an action a cache may answer) and its p50 wall time is
 * within one round trip + 3 ms (the round trip as the upstream measured it,
 * at least the set latency). More calls in sequence are not met, with the
 * reason where the published interface allows no fewer.
 */
function verdict(action: Action, byTarget: ActionRow['byTarget'], latencyMs: number): { met: boolean; verdict: string } {
  const figures = Object.entries(byTarget);
  const parts: string[] = [];
  const most = Math.max(...figures.map(([, f]) => f.inSequence));
  const local = figures.some(([, f]) => f.inSequence === 0) && MAY_BE_LOCAL[action];
  if (figures.some(([, f]) => f.inSequence === 0) && !local)
    parts.push(
      `no upstream call recorded on ${figures
        .filter(([, f]) => f.inSequence === 0)
        .map(([n]) => n)
        .join(', ')}`,
    );
  if (most > 1) parts.push(`${most} round trips in sequence${WHY_MORE[action] ? `: ${WHY_MORE[action]}` : ''}`);
  const over = figures.map(([name, f]) => [name, f.wallP50 - (Math.max(latencyMs, f.roundTripMs || latencyMs) + 3)] as const).filter(([, ms]) => ms > 0);
  // Over the time budget only matters as such when the count is right; with more round trips the count says why.
  if (over.length && most <= 1) parts.push(`${over.map(([name, ms]) => `${name} +${fixed(ms, 1)} ms`).join(', ')} over one round trip + 3 ms`);
  if (!parts.length) return { met: true, verdict: local ? `met (${local})` : 'met' };
  return { met: false, verdict: `not met: ${parts.join('; ')}` };
}

export function actionsTable(r: ActionsResult, targets: string[]): string {
  const head = [
    `| Cashier action (upstream ${r.latencyMs} ms away, one till, p50 of ${r.rounds}) | ${targets.map((t) => `${t}: wall ms`).join(' | ')} | ${targets[0]}: ms before + after the upstream | upstream calls (in sequence) | one round trip + 3 ms |`,
    `|---|${targets.map(() => '--:').join('|')}|--:|---|---|`,
  ];
  const lines = r.rows.map((row) => {
    const first = row.byTarget[targets[0]];
    const measured = targets.filter((t) => row.byTarget[t]);
    const counts = measured.map((t) => `${row.byTarget[t].calls} (${row.byTarget[t].inSequence})`);
    const sameCounts = counts.every((c) => c === counts[0]);
    const chain = first.inSequence > 1 ? `: ${first.chain.join(' then ')}` : first.operations.length ? `: ${first.operations.join(', ')}` : '';
    return `| ${row.action} | ${targets.map((t) => (row.byTarget[t] ? fixed(row.byTarget[t].wallP50, 1) : '-')).join(' | ')} | ${fixed(first.bffBeforeMs, 1)} + ${fixed(first.bffAfterMs, 1)} | ${sameCounts ? counts[0] : counts.map((c, i) => `${measured[i]} ${c}`).join(', ')}${chain} | ${row.verdict} |`;
  });
  return [...head, ...lines].join('\n');
}
