import type { Logger } from 'pino';
import { AppError } from '../../platform/errors';
import type { LoyaltyCallContext, LoyaltyClient } from '../../upstream';
import type { AuditEntry, AuditStore } from '../audit/types';
import { readAllAudit } from '../audit/query';
import type { CouponLockStore } from '../coupons/locks/types';
import type { OutboxEntry, OutboxStore } from '../outbox/types';
import type { SaleRecords } from '../sales/records';
import { rowsOfStore, standInOf, standInRead, type Facts, type Grouped } from './rows';
import { FIGURES, type Figure, type Figures, type ReconciliationReport, type ReconciliationRow } from './types';
import { inPool, UpstreamReads } from './upstream-reads';
import { signalsOfStore, signalView, type AbuseSignal } from '../audit/signals';

export interface ReconciliationDeps {
  audit: AuditStore;
  loyalty: Pick<LoyaltyClient, 'orderTransactions' | 'holdLookup'>;
  outbox: Pick<OutboxStore, 'get'>;
  couponLocks: Pick<CouponLockStore, 'get'>;
  sales: Pick<SaleRecords, 'get'>;
  clock: () => number;
  logger: Logger;
  /** Reads of the loyalty service at once (RECONCILIATION_CONCURRENCY). */
  concurrency: number;
  timeZone: string;
  /** What every read carries to the upstream client (its priority). */
  call?: LoyaltyCallContext;
  /** The Redis data set losses recorded in the window; absent: none can be known (no Redis). */
  redisLosses?: RedisLosses;
  /** The fleet's abuse signals of a window (src/pos/audit/signal-reads.ts); absent: the report lists none. */
  signals?: (window: { from: number; to: number }) => Promise<AbuseSignal[]>;
}

/** The windows (epoch ms) in which the Redis data set was lost, overlapping [from, to]. */
export type RedisLosses = (from: number, to: number) => Promise<{ from: number; to: number }[]>;

export interface ReconciliationWindow {
  from: number;
  to: number;
  /** The store's day it covers, when it is one. */
  date?: string;
}

/**
 * One store's reconciliation for a window: every action its tills took that
 * day (the audit trail) against the loyalty service's own record of it (order
 * transactions, hold lookups) and this BFF's records (outbox, coupon locks,
 * which store a sale belongs to). It only reads: nothing upstream or here changes.
 */
export async function reconcileStore(deps: ReconciliationDeps, storeId: string, window: ReconciliationWindow): Promise<ReconciliationReport> {
  const entries = await readAllAudit(deps.audit, storeId, window.from, window.to);
  const reads = new UpstreamReads(deps.loyalty, { requestId: `recon-${storeId}`.slice(0, 120), ...deps.call });
  const grouped = groupEntries(entries);
  const facts = await gatherFacts(deps, reads, grouped, storeId);
  const rows = rowsOfStore(grouped, facts, { storeId, window, timeZone: deps.timeZone });
  const iso = (ms: number) => new Date(ms).toISOString();
  const losses = deps.redisLosses ? await deps.redisLosses(window.from, window.to) : [];
  return {
    storeId,
    window: { from: new Date(window.from).toISOString(), to: new Date(window.to).toISOString(), date: window.date, timeZone: deps.timeZone },
    generatedAt: new Date(deps.clock()).toISOString(),
    actions: countBy(entries.filter((e) => e.outcome !== 'settled').map((e) => e.action)),
    settledLater: entries.filter((e) => e.outcome === 'settled').length,
    rows,
    anomalies: rows.flatMap((r) => r.flags.map((kind) => ({ kind, row: r.kind, id: r.id, note: r.note }))),
    totals: totalsOf(rows),
    reads: { ...reads.counts },
    redisLosses: losses.map((l) => ({ from: iso(l.from), to: iso(l.to) })),
    signals: deps.signals ? signalsOfStore(await deps.signals(window), storeId).map(signalView) : [],
  };
}

function countBy<K extends string>(keys: K[]): Partial<Record<K, number>> {
  const out: Partial<Record<K, number>> = {};
  for (const k of keys) out[k] = (out[k] ?? 0) + 1;
  return out;
}

const push = <K, V>(m: Map<K, V[]>, k: K, v: V) => m.set(k, [...(m.get(k) ?? []), v]);

/** Each entry in exactly one group: its action's subject. */
export function groupEntries(entries: AuditEntry[]): Grouped {
  const g: Grouped = { sales: new Map(), refunds: new Map(), redemptions: new Map(), locks: new Map(), others: [] };
  for (const e of entries) {
    if (e.action === 'payment' && e.paymentId) push(g.sales, e.paymentId, e);
    else if ((e.action === 'refund' || e.action === 'sale_void') && e.refundId) push(g.refunds, e.refundId, e);
    else if (
      (e.action === 'redemption_start' ||
        e.action === 'otp_step' ||
        e.action === 'redemption_void' ||
        e.action === 'stand_in_short' ||
        e.action === 'stand_in_approve' ||
        e.action === 'stand_in_lapsed') &&
      e.redemptionId
    )
      push(g.redemptions, e.redemptionId, e);
    else if ((e.action === 'coupon_lock' || e.action === 'coupon_release') && e.couponLockId) push(g.locks, e.couponLockId, e);
    else g.others.push(e);
  }
  return g;
}

/** What the rows are checked against, read once each, a few at a time. */
async function gatherFacts(deps: ReconciliationDeps, reads: UpstreamReads, g: Grouped, storeId: string): Promise<Facts> {
  const facts: Facts = { transactions: new Map(), holds: new Map(), outbox: new Map(), locks: new Map(), saleStores: new Map(), unreadable: new Map() };
  const jobs: (() => Promise<void>)[] = [];
  const all = [...g.sales.values(), ...g.refunds.values(), ...g.redemptions.values(), ...g.locks.values(), g.others].flat();
  for (const id of new Set(all.map((e) => e.outboxId).filter((x): x is string => !!x))) {
    jobs.push(async () => void facts.outbox.set(id, (await deps.outbox.get(id, deps.clock())) as OutboxEntry | null));
  }
  // A refused sale or refund has nothing upstream to compare; everything else is read.
  const orders = new Set<string>();
  for (const [id, list] of g.sales) if (list.some((e) => e.outcome !== 'refused')) orders.add(id);
  for (const list of g.refunds.values()) {
    const paymentId = list.find((e) => e.paymentId)?.paymentId;
    if (!paymentId || list.every((e) => e.outcome === 'refused')) continue;
    orders.add(paymentId);
    jobs.push(async () => void facts.saleStores.set(paymentId, (await deps.sales.get('payment', paymentId))?.storeId ?? null));
  }
  const readOrder = async (id: string) => {
    try {
      facts.transactions.set(id, await reads.transactions(id));
    } catch (err) {
      facts.unreadable.set(`order:${id}`, err instanceof AppError ? err.code : 'internal_error');
    }
  };
  for (const id of orders) jobs.push(() => readOrder(id));
  for (const id of g.locks.keys()) jobs.push(async () => void facts.locks.set(id, await deps.couponLocks.get(id)));
  await inPool(jobs, deps.concurrency, (job) => job());
  // Holds are looked up only where the sale's record cannot say what became of them (read after the sales);
  // a lock's sale (the interface has no lock lookup) likewise, when it is not among the day's sales; a stand-in's
  // redeem (its own record, under the redemption id) once its outbox entry (read above) settled it, or might have.
  const holdJobs: (() => Promise<void>)[] = [];
  for (const lock of facts.locks.values()) {
    const paymentId = lock?.state === 'used' ? lock.paymentId : undefined;
    if (paymentId && !orders.has(paymentId)) holdJobs.push(() => readOrder(paymentId));
  }
  for (const [redemptionId, list] of g.redemptions) {
    const standIn = standInOf(redemptionId, list, g, facts);
    if (standIn) {
      if (standInRead(standIn)) holdJobs.push(() => readOrder(redemptionId));
      continue;
    }
    const reference = list.find((e) => e.holdReference)?.holdReference;
    const usedBySale = [...g.sales.values()].some((s) => s.some((e) => e.redemptionId === redemptionId) && saleRedeemedOnRecord(facts, s));
    if (!reference || usedBySale) continue;
    holdJobs.push(async () => {
      try {
        facts.holds.set(reference, await reads.hold(reference));
      } catch (err) {
        facts.unreadable.set(`hold:${reference}`, err instanceof AppError ? err.code : 'internal_error');
      }
    });
  }
  await inPool(holdJobs, deps.concurrency, (job) => job());
  deps.logger.info({ storeId, ...reads.counts }, 'reconciliation: loyalty records read');
  return facts;
}

function saleRedeemedOnRecord(facts: Facts, sale: AuditEntry[]): boolean {
  const id = sale[0].paymentId as string;
  return (facts.transactions.get(id) ?? []).some((t) => t.transactionType === 'Redemption');
}

const round = (n: number) => Math.round(n * 1000) / 1000;

/** Each side's sum; a BFF-side figure not known here is counted apart, never as 0. */
export function totalsOf(rows: ReconciliationRow[]): ReconciliationReport['totals'] {
  const bff: Figures = {};
  const upstream: Figures = {};
  const notKnownHere: Partial<Record<Figure, number>> = {};
  for (const f of FIGURES) {
    bff[f] = 0;
    upstream[f] = 0;
  }
  const knownHere = new Set<Figure>();
  for (const r of rows) {
    for (const f of FIGURES) {
      const b = r.bff[f];
      if (b === null) notKnownHere[f] = (notKnownHere[f] ?? 0) + 1;
      else if (b !== undefined) {
        bff[f] = round((bff[f] as number) + b);
        if (r.status !== 'upstream_only') knownHere.add(f);
      }
      const u = r.upstream[f];
      if (typeof u === 'number') upstream[f] = round((upstream[f] as number) + u);
    }
  }
  // A figure this BFF never knows (a refund's points given back) is not a sum of 0 here.
  for (const f of FIGURES) if (notKnownHere[f] && !knownHere.has(f)) bff[f] = null;
  return { bff, upstream, notKnownHere };
}
