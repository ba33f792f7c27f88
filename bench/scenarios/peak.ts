import { randomBytes } from 'node:crypto';
import { LimitBucket, PUBLISHED_LIMITS, QUOTA_WINDOW_SECONDS, SERVED_OPERATION_BUCKET } from '../../src/contract';
import { BucketCounts, CallCost, checkoutCost, SaleMode } from '../lib/call-costs';
import { percentile } from '../lib/load';
import type { Program } from '../lib/programs';
import { fixed, integer } from '../lib/report';
import { adminGet, adminPut, adminSend, SandboxKeys, seedCustomers } from '../lib/sandbox-admin';
import { sandboxCallsFromLog, UpstreamCall } from '../lib/upstream-calls';
import { ACTIONS, Checkout, PaymentTold, runTill, Samples, Statuses, tillRequest } from './peak-tills';

/**
 * Scenario 8, the peak day: N tills of one chain on one loyalty account,
 * against the sandbox with the published limits on (default figures), at
 * multiples of the account's capacity, which is computed from the quota and
 * the measured calls per checkout. Half the checkouts want points (QR code ->
 * hold -> payment with its receipt); the rest are plain sales with their
 * receipt (no earn previews). Each load runs once per way of recording a
 * sale (SALES_RECORDED_AS=payment, =order), one after the other, on the same
 * offered load. After each load: the backlog of queued sales drains, and the
 * sandbox's ledger is checked against what the tills were told.
 */

/** The checkouts of the scenario, as rows of the call-cost measurement. */
export const POINTS_CHECKOUT = ['Start redemption, QR code (hold)', 'Payment with redemption (receipt)'];
export const PLAIN_CHECKOUT = ['Payment (receipt)'];

export interface Capacity {
  /** Checkouts per second the account allows, half of them with points. */
  perSecond: number;
  /** The bucket that sets it. */
  bucket: LimitBucket;
  /** Calls per checkout in each bucket (the mean of the two kinds). */
  perCheckout: BucketCounts;
  points: BucketCounts;
  plain: BucketCounts;
}

/** From the published figures (the lower of the rate and the quota per second) and the measured calls per checkout. */
export function capacityOf(costs: CallCost[]): Capacity {
  const points = checkoutCost(costs, POINTS_CHECKOUT);
  const plain = checkoutCost(costs, PLAIN_CHECKOUT);
  let best: Capacity | undefined;
  const perCheckout: BucketCounts = {};
  for (const b of Object.keys(PUBLISHED_LIMITS) as LimitBucket[]) {
    const calls = ((points[b] ?? 0) + (plain[b] ?? 0)) / 2;
    if (!calls) continue;
    perCheckout[b] = calls;
    const { rate, quota } = PUBLISHED_LIMITS[b];
    const perSecond = Math.min(rate, quota / QUOTA_WINDOW_SECONDS) / calls;
    if (!best || perSecond < best.perSecond) best = { perSecond, bucket: b, perCheckout, points, plain };
  }
  if (!best) throw new Error('a checkout made no upstream call: nothing to compute a capacity from');
  return best;
}

export function capacityLine(c: Capacity): string {
  const { rate, quota, row } = PUBLISHED_LIMITS[c.bucket];
  return (
    `Capacity: ${fixed(c.perSecond, 2)} checkouts/s = ${integer(c.perSecond * 60)}/min, set by "${row}" (${rate}/s, ${quota} per ${QUOTA_WINDOW_SECONDS} s): ` +
    `a checkout with points costs ${c.points[c.bucket] ?? 0} calls there, a plain sale ${c.plain[c.bucket] ?? 0}, half and half ${c.perCheckout[c.bucket]}`
  );
}

export interface PeakTarget {
  sandbox: Program;
  keys: SandboxKeys;
  sandboxLog: string;
  /** Cashier tokens, one per till (all of one store). */
  tokens: string[];
  /** Starts the BFF instances for one load (`limits`: the published budget, else the published rates alone, as before the quota), on a fresh Redis prefix, recording sales as `mode`. */
  startBffs(prefix: string, mode: SaleMode): Promise<Program[]>;
  stopBffs(): Promise<void>;
}

export interface PeakOptions {
  /** The capacity the loads are multiples of (payment mode's, whatever the mode: the same offered load for both). */
  capacity: Capacity;
  /** Each mode's own capacity, from its own call costs: its bucket is the one whose useful calls are reported. */
  capacities: Partial<Record<SaleMode, Capacity>>;
  durationS: number;
  tills: number;
  latencyMs: number;
  drainLimitS: number;
  retries: number;
  progress(line: string): void;
}

export interface LoadResult {
  label: string;
  factor: number;
  limits: boolean;
  /** How the BFFs recorded sales (SALES_RECORDED_AS). */
  mode: SaleMode;
  offeredPerMin: number;
  checkouts: number;
  completedPerMin: number;
  /** Sales the upstream recorded while the tills were busy (not the queued ones delivered after), per minute. */
  recordedPerMin: number;
  withPointsPerMin: number;
  pointsWanted: number;
  startsRefused: number;
  startRefusals: Record<string, number>;
  refusedAfterHold: number;
  refusedAfterHoldFinally: number;
  /** When each payment after its hold was first refused, in seconds from the start of the load. */
  refusedAfterHoldAtS: number[];
  /** 2xx calls of the bucket that sets the mode's capacity, per second of the load (from its start). */
  usefulPerSecond: number[];
  plain: { created: number; queued: number; other: number };
  drainS: number | null;
  undrained: number;
  upstream429: number;
  upstream429During: number;
  /** 2xx calls in the bucket that sets this mode's capacity during the load, over its quota for that long. */
  usefulShare: number;
  useful: number;
  usefulBucket: LimitBucket;
  /** The sandbox's answers per bucket, from the start of the load to the end of the drain. */
  callsByBucket: Record<string, { ok: number; limited: number; other: number }>;
  /** The same during the load only. */
  callsDuring: Record<string, { ok: number; limited: number; other: number }>;
  latency: Record<string, { n: number; p50: number; p99: number }>;
  /** Each action's first answers: status (and problem code) -> count. */
  statuses: Statuses;
  /** Calls the BFFs' budget refused before sending (pos_upstream_budget_refusals_total, both instances), by operation. */
  budgetRefusals: Record<string, number>;
  ledger: { lost: number; doubled: number; appliedWhenRefused: number; notTold: number; pointsMismatch: number; holdsNotTold: number };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function inParallel<T>(items: T[], width: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(width, items.length) }, async () => {
      while (next < items.length) await fn(items[next++]);
    }),
  );
}

/** The sandbox's account for this load: limits as published (or out of reach, as before the sandbox enforced any), every v4.0 call `latencyMs` away. */
async function prepareSandbox(t: PeakTarget, limits: boolean, latencyMs: number): Promise<void> {
  await adminPut(t.sandbox, t.keys, `/_sandbox/accounts/${t.keys.apiKey}`, {
    rateLimits: limits ? { enforced: true, multiplier: 1 } : { enforced: true, multiplier: 10_000 },
  });
  await adminPut(t.sandbox, t.keys, '/_sandbox/faults', { rules: latencyMs > 0 ? [{ operation: '*', latencyMs }] : [] });
}

/** Reset, customers seeded, and the QR codes of the points customers read with the limits off (the customers' apps, not the tills). */
async function freshCustomers(t: PeakTarget, prefix: string, points: number, plain: number): Promise<Map<string, string>> {
  await adminSend(t.sandbox, t.keys, 'POST', '/_sandbox/reset', {});
  await adminPut(t.sandbox, t.keys, `/_sandbox/accounts/${t.keys.apiKey}`, { rateLimits: { enforced: false } });
  await seedCustomers(t.sandbox, t.keys, `${prefix}p`, points, 1000);
  await seedCustomers(t.sandbox, t.keys, `${prefix}n`, plain, 1000);
  const qr = new Map<string, string>();
  const ids = Array.from({ length: points }, (_, i) => `${prefix}p${i}`);
  await inParallel(ids, 16, async (id) => {
    const { hash } = (await adminGet(t.sandbox, t.keys, `/api/v4.0/integrations/customers/${id}/hash`)) as { hash: string };
    qr.set(id, `${id}:${hash}`);
  });
  return qr;
}

/** Polls the queued sales until each is delivered or dead; when the last was delivered (epoch ms) and how many were not. */
async function drain(t: PeakTarget, base: string, queued: PaymentTold[], limitS: number): Promise<{ lastDelivered: number | null; undrained: number }> {
  const open = new Map(queued.map((p) => [p.outboxId as string, p]));
  let lastDelivered: number | null = null;
  const until = Date.now() + limitS * 1000;
  while (open.size && Date.now() < until) {
    await inParallel([...open.keys()], 16, async (id) => {
      const a = await tillRequest(base, 'GET', `/outbox/${id}`, t.tokens[0]);
      const state = a.body.state;
      if (state === 'delivered') {
        const at = Date.parse(String(a.body.deliveredAt));
        lastDelivered = Math.max(lastDelivered ?? 0, at);
        open.delete(id);
      } else if (state === 'dead') open.delete(id);
    });
    if (open.size) await sleep(1000);
  }
  return { lastDelivered, undrained: open.size };
}

interface ActivityEntry {
  type: string;
  properties: Record<string, unknown>;
}

/**
 * What the sandbox's ledger says against what the tills were told, payment id
 * by payment id: lost (told 201 or 202, not there), doubled (there twice, or a
 * second sale for one checkout's customer), and the other mismatches.
 */
async function checkLedger(t: PeakTarget, checkouts: Checkout[], holdsTold: number): Promise<LoadResult['ledger']> {
  const told = new Map<string, PaymentTold>();
  for (const c of checkouts) for (const p of c.payments) told.set(p.paymentId, p);
  const out = { lost: 0, doubled: 0, appliedWhenRefused: 0, notTold: 0, pointsMismatch: 0, holdsNotTold: 0 };
  const applied = new Map<string, ActivityEntry[]>();
  let holds = 0;
  // Every checkout has a customer of its own: two sales recorded for one customer are one checkout charged twice.
  let customersChargedTwice = 0;
  const customers = [...new Set(checkouts.map((c) => c.customerId))];
  await inParallel(customers, 16, async (id) => {
    const { activity } = (await adminGet(t.sandbox, t.keys, `/_sandbox/customers/${encodeURIComponent(id)}/activity`)) as { activity: ActivityEntry[] };
    // A sale recorded as a payment or as a tracked order (its order id is the payment id).
    const sales = activity.filter((a) => a.type === 'Payment Processed' || a.type === 'Order Processed');
    holds += activity.filter((a) => a.type === 'Points Held').length;
    if (sales.length > 1) customersChargedTwice += 1;
    for (const a of sales) {
      const pid = String(a.properties.paymentId ?? a.properties.orderId);
      applied.set(pid, [...(applied.get(pid) ?? []), a]);
    }
  });
  for (const [pid, p] of told) {
    const n = applied.get(pid)?.length ?? 0;
    if (p.told === 'refused') {
      if (n) out.appliedWhenRefused += 1;
    } else if (n === 0) out.lost += 1;
    else if (n > 1) out.doubled += 1;
    if (p.told === 'recorded' && p.pointsRedeemed !== undefined && n === 1 && Number(applied.get(pid)![0].properties.redeemedPoints ?? 0) !== p.pointsRedeemed)
      out.pointsMismatch += 1;
  }
  for (const pid of applied.keys()) if (!told.has(pid)) out.notTold += 1;
  out.doubled += customersChargedTwice;
  out.holdsNotTold = Math.max(0, holds - holdsTold);
  return out;
}

function latencies(samples: Samples): LoadResult['latency'] {
  const out: LoadResult['latency'] = {};
  for (const name of Object.values(ACTIONS)) {
    const s = Float64Array.from(samples[name] ?? []).sort();
    out[name] = { n: s.length, p50: percentile(s, 0.5), p99: percentile(s, 0.99) };
  }
  return out;
}

function callsIn(calls: UpstreamCall[], from: number, to: number) {
  const byBucket: LoadResult['callsByBucket'] = {};
  for (const c of calls) {
    if (c.start < from || c.start > to) continue;
    const b = SERVED_OPERATION_BUCKET[c.operation as keyof typeof SERVED_OPERATION_BUCKET];
    const row = (byBucket[b] ??= { ok: 0, limited: 0, other: 0 });
    if (c.status === 429) row.limited += 1;
    else if (c.status !== undefined && c.status < 300) row.ok += 1;
    else row.other += 1;
  }
  return byBucket;
}

/** A bucket's 2xx calls per second from `from` (epoch ms) to `to`, by when they arrived. */
function perSecond(calls: UpstreamCall[], bucket: LimitBucket, from: number, to: number): number[] {
  const out = new Array<number>(Math.max(1, Math.ceil((to - from) / 1000))).fill(0);
  for (const c of calls) {
    if (c.start < from || c.start > to || c.status === undefined || c.status >= 300) continue;
    if (SERVED_OPERATION_BUCKET[c.operation as keyof typeof SERVED_OPERATION_BUCKET] !== bucket) continue;
    out[Math.min(out.length - 1, Math.floor((c.start - from) / 1000))] += 1;
  }
  return out;
}

/** Times (s) as spans where they bunch (less than `gapS` apart): "21.8–29.6 s (37)". */
export function spans(times: number[], gapS = 2): string {
  const out: string[] = [];
  let i = 0;
  while (i < times.length) {
    let j = i;
    while (j + 1 < times.length && times[j + 1] - times[j] < gapS) j++;
    out.push(i === j ? `${fixed(times[i], 1)} s (1)` : `${fixed(times[i], 1)}–${fixed(times[j], 1)} s (${j - i + 1})`);
    i = j + 1;
  }
  return out.join(', ');
}

/**
 * The most calls a bucket's limits let through in `seconds` from an empty
 * window: the quota once per started window (the sandbox counts any 30 s, so
 * a full window can only follow one that has emptied), at most the rate.
 */
export function mostAllowed(bucket: LimitBucket, seconds: number): number {
  const { rate, quota } = PUBLISHED_LIMITS[bucket];
  return Math.min(rate * seconds, quota * Math.ceil(seconds / QUOTA_WINDOW_SECONDS));
}

/** pos_upstream_budget_refusals_total of every instance (its /metrics, on the cashier port outside production), summed by operation. */
async function refusalsOf(bffs: Program[]): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const b of bffs) {
    const text = await fetch(`${b.url}/metrics`)
      .then((r) => (r.ok ? r.text() : ''))
      .catch(() => '');
    for (const m of text.matchAll(/^pos_upstream_budget_refusals_total\{[^}]*operation="([^"]+)"[^}]*\} (\d+(?:\.\d+)?)$/gm))
      out[m[1]] = (out[m[1]] ?? 0) + Number(m[2]);
  }
  return out;
}

/** One load: fresh customers and BFFs, the tills for `durationS`, the drain, the ledger check, the sandbox's record of every call. */
export async function runLoad(
  t: PeakTarget,
  o: PeakOptions,
  load: { label: string; factor: number; limits: boolean; index: number; mode: SaleMode },
  /** When the tills start (epoch ms), once this load is set up; another load run beside it shares the moment. */
  begin: () => Promise<number> = async () => Date.now() + 500,
): Promise<LoadResult> {
  const offered = load.factor * o.capacity.perSecond;
  const expected = Math.ceil(offered * o.durationS);
  const prefix = `pk${load.index}x${randomBytes(2).toString('hex')}`;
  // Every checkout has a customer of its own; half want points, with some room for the schedule's jitter.
  const poolSize = Math.ceil(expected * 0.6) + o.tills;
  const qr = await freshCustomers(t, prefix, poolSize, poolSize);
  await prepareSandbox(t, load.limits, o.latencyMs);
  const bffs = await t.startBffs(`peak-${prefix}:`, load.mode);
  const pools = { points: 0, plain: 0 };
  const nextCustomer = (kind: Checkout['kind']) => (pools[kind] < poolSize ? `${prefix}${kind === 'points' ? 'p' : 'n'}${pools[kind]++}` : undefined);
  const samples: Samples = {};
  const statuses: Statuses = {};
  const intervalMs = (o.tills / offered) * 1000;
  const run = `pk-${prefix}`;
  o.progress(
    `${load.label}: ${o.tills} tills, ${fixed(offered * 60, 0)} checkouts/min offered (a checkout every ${fixed(intervalMs / 1000, 2)} s per till) for ${o.durationS} s`,
  );
  const startAt = await begin();
  const perTill = await Promise.all(
    Array.from({ length: o.tills }, (_, i) =>
      runTill(
        { base: bffs[i % bffs.length].url, token: t.tokens[i], till: i, run, qr: (id) => qr.get(id) as string, samples, statuses, retries: o.retries },
        {
          startAt,
          durationMs: o.durationS * 1000,
          intervalMs,
          offsetMs: (i * intervalMs) / o.tills,
          kindOf: (n) => ((n + i) % 2 ? 'points' : 'plain'),
          nextCustomer,
        },
      ),
    ),
  );
  const checkouts = perTill.flat();
  const loadEnd = Math.max(startAt + o.durationS * 1000, ...checkouts.map((c) => c.endedAt));
  const payments = checkouts.flatMap((c) => c.payments);
  const queued = payments.filter((p) => p.told === 'queued');
  o.progress(`${load.label}: ${checkouts.length} checkouts; ${queued.length} sales queued, draining`);
  const drained = await drain(t, bffs[0].url, queued, o.drainLimitS);
  const drainEnd = Date.now();
  // The sandbox writes its log line after each answer: give the last ones a moment.
  await sleep(500);
  const holdsTold = checkouts.filter((c) => c.kind === 'points' && !c.startRefused).length;
  const ledger = await checkLedger(t, checkouts, holdsTold);
  const budgetRefusals = await refusalsOf(bffs);
  await t.stopBffs();

  const calls = sandboxCallsFromLog(t.sandboxLog, '');
  const during = callsIn(calls, startAt, loadEnd);
  const all = callsIn(calls, startAt, drainEnd);
  const bucket = (o.capacities[load.mode] ?? o.capacity).bucket;
  const useful = during[bucket]?.ok ?? 0;
  const minutes = o.durationS / 60;
  const completed = checkouts.filter((c) => c.completed);
  const plainAnswers = payments.filter((p) => !p.withRedemption);
  const startRefusals: Record<string, number> = {};
  for (const c of checkouts) if (c.startRefused) startRefusals[c.startRefused] = (startRefusals[c.startRefused] ?? 0) + 1;
  return {
    label: load.label,
    factor: load.factor,
    limits: load.limits,
    mode: load.mode,
    offeredPerMin: offered * 60,
    checkouts: checkouts.length,
    completedPerMin: completed.length / minutes,
    recordedPerMin: payments.filter((p) => p.told === 'recorded').length / minutes,
    withPointsPerMin: completed.filter((c) => c.withPoints).length / minutes,
    pointsWanted: checkouts.filter((c) => c.kind === 'points').length,
    startsRefused: checkouts.filter((c) => c.startRefused).length,
    startRefusals,
    refusedAfterHold: checkouts.filter((c) => c.refusedAfterHold).length,
    refusedAfterHoldFinally: checkouts.filter((c) => c.refusedAfterHold && !c.withPoints).length,
    refusedAfterHoldAtS: checkouts
      .filter((c) => c.refusedAfterHoldAt !== undefined)
      .map((c) => ((c.refusedAfterHoldAt as number) - startAt) / 1000)
      .sort((a, b) => a - b),
    usefulPerSecond: perSecond(calls, bucket, startAt, loadEnd),
    plain: {
      created: plainAnswers.filter((p) => p.status === 201).length,
      queued: plainAnswers.filter((p) => p.status === 202).length,
      other: plainAnswers.filter((p) => p.status !== 201 && p.status !== 202).length,
    },
    drainS: queued.length === 0 ? 0 : drained.lastDelivered === null ? null : Math.max(0, (drained.lastDelivered - loadEnd) / 1000),
    undrained: drained.undrained,
    upstream429: Object.values(all).reduce((n, r) => n + r.limited, 0),
    upstream429During: Object.values(during).reduce((n, r) => n + r.limited, 0),
    usefulShare: useful / mostAllowed(bucket, o.durationS),
    useful,
    usefulBucket: bucket,
    callsByBucket: all,
    callsDuring: during,
    latency: latencies(samples),
    statuses,
    budgetRefusals,
    ledger,
  };
}

const ms = (x: number) => (Number.isFinite(x) ? fixed(x, x < 10 ? 1 : 0) : '–');
const ratio = (a: number, b: number) => (b > 0 && Number.isFinite(a) && Number.isFinite(b) ? fixed(a / b, 2) : '–');

/** What the tills got per load and mode, how long each cashier action took, the calls per bucket, and order mode against payment mode. */
export function peakTables(rows: LoadResult[], c: Capacity, durationS: number): string {
  const outcomes = [
    `| Load (× capacity) | Sales recorded as | Checkouts/min offered | Completed at once/min, 201 (× capacity ${integer(c.perSecond * 60)}) | Queued, 202 | With points/min | Upstream 429s | Payments refused after hold | Starts refused | Plain sales 201 / 202 / other | Backlog drained after | Lost / doubled | Useful calls in the bucket that sets the mode's capacity / most the limits allow |`,
    '|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|',
    ...rows.map((r) => {
      const drain =
        r.drainS === null ? `not in time (${r.undrained} left)` : r.undrained ? `${fixed(r.drainS, 1)} s (${r.undrained} left)` : `${fixed(r.drainS, 1)} s`;
      const ledgerBad = r.ledger.appliedWhenRefused + r.ledger.notTold + r.ledger.pointsMismatch + r.ledger.holdsNotTold;
      const queued = r.plain.queued;
      return (
        `| ${r.label} | ${r.mode} | ${integer(r.offeredPerMin)} | ${integer(r.recordedPerMin)} (${fixed(r.recordedPerMin / (c.perSecond * 60), 2)}×) | ${queued} | ${integer(r.withPointsPerMin)} | ${r.upstream429} | ${r.refusedAfterHold} | ${r.startsRefused} of ${r.pointsWanted} | ` +
        `${r.plain.created} / ${r.plain.queued} / ${r.plain.other} | ${drain} | ${r.ledger.lost} / ${r.ledger.doubled}${ledgerBad ? ` (+${ledgerBad} other mismatches)` : ''} | ` +
        `${PUBLISHED_LIMITS[r.usefulBucket].row}: ${fixed(r.usefulShare * 100, 0)} % (${r.useful} of ${mostAllowed(r.usefulBucket, durationS)} in ${durationS} s) |`
      );
    }),
  ];
  const names = Object.values(ACTIONS);
  const times = [
    `| Load | Sales recorded as | ${names.map((n) => `${n}: p50 / p99 ms (n)`).join(' | ')} |`,
    `|---|---|${names.map(() => '--:').join('|')}|`,
    ...rows.map(
      (r) =>
        `| ${r.label} | ${r.mode} | ${names.map((n) => (r.latency[n].n ? `${ms(r.latency[n].p50)} / ${ms(r.latency[n].p99)} (${r.latency[n].n})` : '–')).join(' | ')} |`,
    ),
  ];
  return [outcomes.join('\n'), times.join('\n'), bucketTable(rows, durationS), modeComparison(rows), secondLegRatios(rows)].filter(Boolean).join('\n\n');
}

const BUCKET_ORDER: LimitBucket[] = ['transactionsWrite', 'orders', 'transactionsRead', 'customersRead'];

/**
 * Where each mode's calls went during the load: the sandbox's 2xx answers per
 * bucket over the most its limits allow in that time (a full bucket is near
 * 100 %, the cashier priority stops at 100 % less the second legs' reserve),
 * and the calls the BFFs' budget refused before sending, by operation.
 */
export function bucketTable(rows: LoadResult[], durationS: number): string {
  const buckets = BUCKET_ORDER.filter((b) => rows.some((r) => r.callsDuring[b]));
  return [
    `| Load | Sales recorded as | ${buckets.map((b) => `${PUBLISHED_LIMITS[b].row}: 2xx during the load (of ${mostAllowed(b, durationS)})`).join(' | ')} | Refused by the BFFs' budget before sending, by operation |`,
    `|---|---|${buckets.map(() => '--:').join('|')}|---|`,
    ...rows.map((r) => {
      const cells = buckets.map((b) => {
        const n = r.callsDuring[b]?.ok ?? 0;
        const limited = r.callsDuring[b]?.limited ?? 0;
        return `${n} (${fixed((n / mostAllowed(b, durationS)) * 100, 0)} %)${limited ? `, ${limited} × 429` : ''}`;
      });
      const refused = Object.entries(r.budgetRefusals)
        .sort((a, b) => b[1] - a[1])
        .map(([op, n]) => `${op} ${n}`)
        .join(', ');
      return `| ${r.label} | ${r.mode} | ${cells.join(' | ')} | ${refused || 'none'} |`;
    }),
    ...secondLegTimeline(rows),
  ].join('\n');
}

/**
 * Where payments were refused after their hold: when (seconds into the load),
 * against the 2xx calls per 5 s of the bucket that sets the mode's capacity
 * (the bucket the payment, or the order, goes to), so a full window shows.
 */
function secondLegTimeline(rows: LoadResult[]): string[] {
  return rows
    .filter((r) => r.refusedAfterHoldAtS.length)
    .map((r) => {
      const per5: number[] = [];
      r.usefulPerSecond.forEach((n, i) => (per5[Math.floor(i / 5)] = (per5[Math.floor(i / 5)] ?? 0) + n));
      return (
        `\n${r.label} ${r.mode}: payments first refused after their hold at ${spans(r.refusedAfterHoldAtS)} into the load; ` +
        `${PUBLISHED_LIMITS[r.usefulBucket].row} 2xx per 5 s from the start: ${per5.join(' ')}`
      );
    });
}

/** Whether two loads' tills were answered the same statuses for every action (which statuses, not how many), and where not, how. */
export function sameStatuses(a: LoadResult, b: LoadResult): { same: boolean; differences: string[] } {
  const differences: string[] = [];
  for (const name of new Set([...Object.keys(a.statuses), ...Object.keys(b.statuses)])) {
    const sa = Object.keys(a.statuses[name] ?? {}).sort();
    const sb = Object.keys(b.statuses[name] ?? {}).sort();
    if (sa.join() !== sb.join()) {
      const show = (x: Record<string, number> | undefined) =>
        Object.entries(x ?? {})
          .map(([st, n]) => `${st} ×${n}`)
          .join(', ') || 'none';
      differences.push(`${name}: ${a.mode} ${show(a.statuses[name])}; ${b.mode} ${show(b.statuses[name])}`);
    }
  }
  return { same: differences.length === 0, differences };
}

/** The pairs of one load (limits on) run in both modes. */
function pairs(rows: LoadResult[]): { factor: number; payment: LoadResult; order: LoadResult }[] {
  const out: { factor: number; payment: LoadResult; order: LoadResult }[] = [];
  for (const payment of rows.filter((r) => r.limits && r.mode === 'payment')) {
    const order = rows.find((r) => r.limits && r.mode === 'order' && r.factor === payment.factor);
    if (order) out.push({ factor: payment.factor, payment, order });
  }
  return out;
}

/** The issue's targets for order mode, judged on the loads of this run that have them (2× and 0.5×). */
export interface ModeVerdict {
  factor: number;
  target: string;
  measured: string;
  met: boolean;
}

export function modeVerdicts(rows: LoadResult[]): ModeVerdict[] {
  const out: ModeVerdict[] = [];
  for (const { factor, payment, order } of pairs(rows)) {
    if (factor === 2) {
      const r = order.recordedPerMin / payment.recordedPerMin;
      out.push(
        { factor, target: 'order mode: 0 upstream 429s', measured: String(order.upstream429), met: order.upstream429 === 0 },
        { factor, target: 'order mode: 0 payments refused after their hold', measured: String(order.refusedAfterHold), met: order.refusedAfterHold === 0 },
        {
          factor,
          target: 'order mode completes at once >= 1.5 × payment mode',
          // Three decimals: 648 against 433 is 1.497, which two would show as 1.50.
          measured: `${fixed(r, 3)}× (${integer(order.recordedPerMin)} against ${integer(payment.recordedPerMin)} a minute)`,
          met: r >= 1.5,
        },
      );
    }
    if (factor === 0.5) {
      const st = sameStatuses(payment, order);
      out.push({ factor, target: 'the same statuses in both modes', measured: st.same ? 'the same' : st.differences.join('; '), met: st.same });
      const worst = Object.values(ACTIONS)
        .filter((n) => payment.latency[n].n && order.latency[n].n)
        .map((n) => ({ n, r: order.latency[n].p50 / payment.latency[n].p50 }))
        .sort((a, b) => b.r - a.r)[0];
      if (worst)
        out.push({
          factor,
          target: 'p50 of each action, order over payment, <= 1.2',
          measured: `highest ${fixed(worst.r, 2)} (${worst.n})`,
          met: worst.r <= 1.2,
        });
    }
  }
  return out;
}

/**
 * Order mode against payment mode, load by load (the same offered load):
 * checkouts completed at once (201) per minute and their ratio, whether the
 * tills were answered the same statuses, and each action's p50 order over payment.
 */
export function modeComparison(rows: LoadResult[]): string {
  const ps = pairs(rows);
  if (!ps.length) return '';
  const names = Object.values(ACTIONS);
  const table = [
    `| Load | Completed at once/min (201): payment / order | Order ÷ payment | Same statuses | ${names.map((n) => `${n}: p50 order ÷ payment`).join(' | ')} |`,
    `|---|--:|--:|---|${names.map(() => '--:').join('|')}|`,
    ...ps.map(({ payment, order }) => {
      const st = sameStatuses(payment, order);
      const p50s = names.map((n) => (payment.latency[n].n && order.latency[n].n ? ratio(order.latency[n].p50, payment.latency[n].p50) : '–'));
      return `| ${payment.factor}× | ${integer(payment.recordedPerMin)} / ${integer(order.recordedPerMin)} | ${payment.recordedPerMin > 0 ? fixed(order.recordedPerMin / payment.recordedPerMin, 3) : '–'} | ${st.same ? 'yes' : `no: ${st.differences.join('; ')}`} | ${p50s.join(' | ')} |`;
    }),
  ];
  const verdicts = modeVerdicts(rows);
  const targets = verdicts.length
    ? [
        '| Load | Target (order mode against payment mode) | Measured | Met |',
        '|---|---|---|:-:|',
        ...verdicts.map((v) => `| ${v.factor}× | ${v.target} | ${v.measured} | ${v.met ? 'yes' : 'no'} |`),
      ].join('\n')
    : '';
  return [table.join('\n'), targets].filter(Boolean).join('\n\n');
}

/**
 * The payment after its hold (with its receipt) at each load, its p50 over
 * the p50 at the lowest load of the same run and mode (limits on): second legs go
 * ahead of the cashier calls booked, so the aim is at most 2× at 4× capacity.
 */
export function secondLegRatios(rows: LoadResult[]): string {
  const lines: string[] = [];
  for (const mode of [...new Set(rows.map((r) => r.mode))]) {
    const limited = rows.filter((r) => r.limits && r.mode === mode && r.latency[ACTIONS.pointsPayment].n);
    if (!limited.length) {
      lines.push(`Payment with redemption (receipt), ${mode} mode: no samples`);
      continue;
    }
    const base = limited.reduce((a, b) => (b.factor < a.factor ? b : a));
    const p50 = (r: LoadResult) => r.latency[ACTIONS.pointsPayment].p50;
    const cells = limited.filter((r) => r !== base).map((r) => `${r.label} ${ms(p50(r))} ms = ${fixed(p50(r) / p50(base), 2)}×`);
    lines.push(
      `Payment with redemption (receipt), ${mode} mode, p50 against ${base.label} of this run (${ms(p50(base))} ms): ${cells.join(', ') || '–'} (aim: at most 2× at 4×)`,
    );
  }
  return lines.join('\n');
}
