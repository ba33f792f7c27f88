/**
 * Abuse signals, computed from the audit trail: patterns a store manager
 * should look into, never a verdict. Each is a threshold on what the tills
 * did (SIGNAL_* settings, src/platform/settings/abuse.ts):
 *
 * - `customer_share`: one customer id on at least SIGNAL_SHIFT_SHARE_PERCENT of
 *   a shift's sales, in a shift of at least SIGNAL_SHIFT_MIN_SALES (a cashier
 *   collecting other buyers' points on their own card);
 * - `earn_then_refund`: a cashier who refunded or voided SIGNAL_REFUND_PER_CASHIER
 *   or more of their own sales that earned points in a day, each within
 *   SIGNAL_REFUND_WITHIN_HOURS of the sale (points to their own or a friend's
 *   card, the goods or money back). A refund counts only when made by the
 *   cashier who rang the sale: refunds need a manager terminal, so a few
 *   people make all of a store's refunds, and counting every refund they made
 *   would flag the manager for ordinary returns; one person at both ends needs
 *   no accomplice. A till that names no cashier stands for one;
 * - `multi_store_redemptions`: one customer's redemptions started at
 *   SIGNAL_MULTI_STORE_COUNT stores or more within SIGNAL_MULTI_STORE_MINUTES
 *   (a copied QR code or a shared account);
 * - `typed_customer_id`: a cashier starting SIGNAL_TYPED_ID_PER_CASHIER
 *   redemptions or more in a day from a typed customer id, with no QR code
 *   or hash and no OTP (the start's audit entry records its `proof`).
 *
 * A day's signals are those whose last act falls in the day: a refund of the
 * day (its sale may be of the day before), the shift's sales and the starts of
 * the day. They are computed over the whole fleet (a pattern may cross
 * stores) and each store is shown its own part (signalsOfStore).
 */
import type { SignalThresholds } from '../../platform/settings';
import type { AuditEntry } from './types';

export const SIGNALS = ['customer_share', 'earn_then_refund', 'multi_store_redemptions', 'typed_customer_id'] as const;
export type SignalKind = (typeof SIGNALS)[number];

/** The thresholds' defaults (as the settings declare them), for readers given none. */
export const DEFAULT_THRESHOLDS: SignalThresholds = {
  shiftSharePercent: 30,
  shiftMinSales: 10,
  refundWithinHours: 24,
  refundPerCashier: 3,
  multiStoreCount: 3,
  multiStoreMinutes: 30,
  typedIdPerCashier: 3,
};

/** One store's part of a signal: what its own tills did. */
export interface SignalPart {
  storeId: string;
  cashierIds: string[];
  terminalIds: string[];
  paymentIds: string[];
  refundIds: string[];
  redemptionIds: string[];
}

export interface AbuseSignal {
  signal: SignalKind;
  /** Epoch ms of the pattern's first and last act. */
  from: number;
  to: number;
  customerId?: string;
  /** customer_share: the shift (its X-Shift-Id; absent: the till's sales without one). */
  shiftId?: string;
  /** What was counted (the customer's sales, the cashier's own sales refunded, the redemptions, the typed starts) and the threshold it met. */
  count: number;
  threshold: number;
  /** customer_share: the shift's sales; multi_store_redemptions: the stores (all of them, even where only one store's part is shown). */
  of?: number;
  /** In words, for the printout and the manager. */
  note: string;
  /** Each store's part; a store is shown its own only. */
  parts: SignalPart[];
}

const uniq = (xs: (string | undefined)[]) => [...new Set(xs.filter((x): x is string => x !== undefined))].sort();

function partOf(storeId: string, entries: AuditEntry[]): SignalPart {
  return {
    storeId,
    cashierIds: uniq(entries.map((e) => e.cashierId)),
    terminalIds: uniq(entries.map((e) => e.terminalId)),
    paymentIds: uniq(entries.map((e) => e.paymentId)),
    refundIds: uniq(entries.map((e) => e.refundId)),
    redemptionIds: uniq(entries.map((e) => e.redemptionId)),
  };
}

function partsOf(entries: AuditEntry[]): SignalPart[] {
  const byStore = new Map<string, AuditEntry[]>();
  for (const e of entries) byStore.set(e.storeId, [...(byStore.get(e.storeId) ?? []), e]);
  return [...byStore].sort(([a], [b]) => a.localeCompare(b)).map(([storeId, list]) => partOf(storeId, list));
}

/** A sale the tills made: recorded (applied) or queued; one per payment id. */
const isSale = (e: AuditEntry) => e.action === 'payment' && (e.outcome === 'applied' || e.outcome === 'queued') && e.paymentId !== undefined;
const isRefund = (e: AuditEntry) => (e.action === 'refund' || e.action === 'sale_void') && (e.outcome === 'applied' || e.outcome === 'queued');
const isStart = (e: AuditEntry) => e.action === 'redemption_start' && e.outcome === 'applied';

function firstPerId(entries: AuditEntry[], id: (e: AuditEntry) => string | undefined): AuditEntry[] {
  const seen = new Map<string, AuditEntry>();
  for (const e of entries) {
    const k = id(e);
    if (k !== undefined && !seen.has(k)) seen.set(k, e);
  }
  return [...seen.values()];
}

function customerShare(day: AuditEntry[], t: SignalThresholds): AbuseSignal[] {
  const shifts = new Map<string, AuditEntry[]>();
  for (const e of firstPerId(day.filter(isSale), (x) => `${x.storeId}\n${x.paymentId}`)) {
    // A till that names no shift: its sales by cashier stand for one.
    const k = `${e.storeId}\n${e.shiftId ?? `\n${e.terminalId}\n${e.cashierId ?? ''}`}`;
    shifts.set(k, [...(shifts.get(k) ?? []), e]);
  }
  const out: AbuseSignal[] = [];
  for (const sales of shifts.values()) {
    if (sales.length < t.shiftMinSales) continue;
    const byCustomer = new Map<string, AuditEntry[]>();
    for (const e of sales) if (e.customerId) byCustomer.set(e.customerId, [...(byCustomer.get(e.customerId) ?? []), e]);
    for (const [customerId, theirs] of byCustomer) {
      if (theirs.length * 100 < t.shiftSharePercent * sales.length) continue;
      const shiftId = sales[0].shiftId;
      const percent = Math.round((theirs.length * 1000) / sales.length) / 10;
      out.push({
        signal: 'customer_share',
        from: theirs[0].at,
        to: theirs[theirs.length - 1].at,
        customerId,
        shiftId,
        count: theirs.length,
        threshold: t.shiftSharePercent,
        of: sales.length,
        note: `Customer ${customerId} on ${theirs.length} of ${sales.length} sales (${percent} %) of ${shiftId ? `shift ${shiftId}` : 'a till without a shift id'} (threshold ${t.shiftSharePercent} % of at least ${t.shiftMinSales})`,
        parts: partsOf(theirs),
      });
    }
  }
  return out;
}

/** The most sales an earn_then_refund note names (it is printed on the till's 40 columns); the parts have them all. */
const NOTE_SALES = 10;

/** Who did an act: the cashier the till named, else the till itself. */
const actor = (e: AuditEntry) => (e.cashierId !== undefined ? `cashier\n${e.cashierId}` : `terminal\n${e.terminalId}`);
const actorName = (e: AuditEntry) => (e.cashierId !== undefined ? `Cashier ${e.cashierId}` : `Till ${e.terminalId} (no cashier id)`);

function earnThenRefund(all: AuditEntry[], day: { from: number; to: number }, t: SignalThresholds): AbuseSignal[] {
  const within = t.refundWithinHours * 3600_000;
  const earned = new Map<string, AuditEntry>();
  for (const e of all) {
    if (e.action === 'payment' && e.outcome === 'applied' && e.paymentId && (e.pointsEarned ?? 0) > 0 && !earned.has(e.paymentId)) earned.set(e.paymentId, e);
  }
  // By store and cashier, as typed_customer_id counts a cashier: cashier ids are the tills' own, so one id at two stores
  // may be two people, and a sale and its refund are one cashier's only at one store. Each sale once, with its refunds.
  const byCashier = new Map<string, Map<string, { sale: AuditEntry; refunds: AuditEntry[] }>>();
  for (const r of firstPerId(all.filter(isRefund), (x) => x.refundId ?? `${x.storeId}\n${x.id}`)) {
    if (r.at < day.from || r.at > day.to || !r.paymentId) continue;
    const sale = earned.get(r.paymentId);
    if (!sale || sale.storeId !== r.storeId || r.at < sale.at || r.at - sale.at > within) continue;
    // A refund that names no cashier, of a sale whose cashier is named, may be theirs: counted as theirs, or a till
    // sending no cashier id would hide the habit from the signal.
    if (actor(sale) !== (r.cashierId === undefined && sale.cashierId !== undefined ? actor(sale) : actor(r))) continue;
    const k = `${r.storeId}\n${actor(sale)}`;
    const sales = byCashier.get(k) ?? new Map<string, { sale: AuditEntry; refunds: AuditEntry[] }>();
    byCashier.set(k, sales);
    const pair = sales.get(r.paymentId) ?? { sale, refunds: [] };
    sales.set(r.paymentId, pair);
    pair.refunds.push(r);
  }
  const out: AbuseSignal[] = [];
  for (const sales of byCashier.values()) {
    // Two refunds of one sale are one sale: the habit is over sales, not over pieces of one.
    if (sales.size < t.refundPerCashier) continue;
    const pairs = [...sales.values()];
    const refunds = pairs.flatMap((p) => p.refunds);
    const customers = uniq(pairs.map((p) => p.sale.customerId));
    const customerId = customers.length === 1 && pairs.every((p) => p.sale.customerId !== undefined) ? customers[0] : undefined;
    const listed = pairs.slice(0, NOTE_SALES).map(({ sale, refunds: [first] }) => {
      const minutes = Math.round((first.at - sale.at) / 60_000);
      const after = minutes < 60 ? `${minutes} min` : `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
      return `${sale.paymentId} (+${sale.pointsEarned}, ${first.action === 'sale_void' ? 'voided' : 'refunded'} after ${after})`;
    });
    out.push({
      signal: 'earn_then_refund',
      from: Math.min(...pairs.map((p) => p.sale.at)),
      to: Math.max(...refunds.map((r) => r.at)),
      customerId,
      count: sales.size,
      threshold: t.refundPerCashier,
      note:
        `${actorName(pairs[0].sale)}${refunds.some((r) => r.cashierId === undefined && pairs[0].sale.cashierId !== undefined) ? ' (some at a till naming no cashier)' : ''} refunded or voided ${sales.size} of their own sales that earned points, each within ${t.refundWithinHours} h` +
        `${customerId ? `, all to customer ${customerId}` : ''} (threshold ${t.refundPerCashier} a day): ${listed.join(', ')}` +
        `${pairs.length > NOTE_SALES ? `, and ${pairs.length - NOTE_SALES} more (in parts)` : ''}`,
      parts: partsOf([...pairs.map((p) => p.sale), ...refunds]),
    });
  }
  return out;
}

function multiStore(day: AuditEntry[], t: SignalThresholds): AbuseSignal[] {
  const span = t.multiStoreMinutes * 60_000;
  const byCustomer = new Map<string, AuditEntry[]>();
  for (const e of day.filter(isStart)) if (e.customerId) byCustomer.set(e.customerId, [...(byCustomer.get(e.customerId) ?? []), e]);
  const out: AbuseSignal[] = [];
  for (const [customerId, starts] of byCustomer) {
    starts.sort((a, b) => a.at - b.at);
    let i = 0;
    while (i < starts.length) {
      let j = i;
      while (j + 1 < starts.length && starts[j + 1].at - starts[i].at <= span) j += 1;
      const cluster = starts.slice(i, j + 1);
      const stores = new Set(cluster.map((e) => e.storeId));
      if (stores.size >= t.multiStoreCount) {
        const minutes = Math.round((cluster[cluster.length - 1].at - cluster[0].at) / 60_000);
        out.push({
          signal: 'multi_store_redemptions',
          from: cluster[0].at,
          to: cluster[cluster.length - 1].at,
          customerId,
          count: cluster.length,
          threshold: t.multiStoreCount,
          of: stores.size,
          note: `Customer ${customerId}: ${cluster.length} redemptions at ${stores.size} stores within ${minutes} minutes (threshold ${t.multiStoreCount} stores in ${t.multiStoreMinutes} minutes)`,
          parts: partsOf(cluster),
        });
        i = j + 1;
      } else i += 1;
    }
  }
  return out;
}

function typedIds(day: AuditEntry[], t: SignalThresholds): AbuseSignal[] {
  const byCashier = new Map<string, AuditEntry[]>();
  for (const e of day.filter((x) => isStart(x) && x.proof === 'none')) {
    // A till that names no cashier: its starts stand for one cashier's.
    const k = `${e.storeId}\n${e.cashierId ?? `\n${e.terminalId}`}`;
    byCashier.set(k, [...(byCashier.get(k) ?? []), e]);
  }
  const out: AbuseSignal[] = [];
  for (const starts of byCashier.values()) {
    if (starts.length < t.typedIdPerCashier) continue;
    out.push({
      signal: 'typed_customer_id',
      from: starts[0].at,
      to: starts[starts.length - 1].at,
      count: starts.length,
      threshold: t.typedIdPerCashier,
      note: `${actorName(starts[0])} started ${starts.length} redemptions from a typed customer id, with no QR code and no OTP (threshold ${t.typedIdPerCashier} a day)`,
      parts: partsOf(starts),
    });
  }
  return out;
}

/** How far before the day the trail is read: a refund of the day may undo a sale of the day before. */
export const lookBackMs = (t: SignalThresholds) => t.refundWithinHours * 3600_000;

/**
 * The fleet's signals of a day, from every store's entries of the day and of
 * lookBackMs before it (in any order; the earlier ones only as the sales a
 * refund of the day undid).
 */
export function computeSignals(entries: readonly AuditEntry[], day: { from: number; to: number }, t: SignalThresholds = DEFAULT_THRESHOLDS): AbuseSignal[] {
  const all = [...entries].sort((a, b) => a.at - b.at);
  const inDay = all.filter((e) => e.at >= day.from && e.at <= day.to);
  return [...customerShare(inDay, t), ...earnThenRefund(all, day, t), ...multiStore(inDay, t), ...typedIds(inDay, t)].sort(
    (a, b) => a.from - b.from || SIGNALS.indexOf(a.signal) - SIGNALS.indexOf(b.signal),
  );
}

/** What a store is shown: the signals it has a part in, with only its own part (a cross-store pattern's count of stores stays). */
export function signalsOfStore(signals: readonly AbuseSignal[], storeId: string): AbuseSignal[] {
  return signals.filter((s) => s.parts.some((p) => p.storeId === storeId)).map((s) => ({ ...s, parts: s.parts.filter((p) => p.storeId === storeId) }));
}

/** Signals counted by kind (every kind present, 0 when none). */
export function countSignals(signals: readonly AbuseSignal[]): Record<SignalKind, number> {
  const out = Object.fromEntries(SIGNALS.map((k) => [k, 0])) as Record<SignalKind, number>;
  for (const s of signals) out[s.signal] += 1;
  return out;
}

/** A signal as a manager reads it: its times in ISO 8601 UTC. */
export type AbuseSignalView = Omit<AbuseSignal, 'from' | 'to'> & { from: string; to: string };

export const signalView = (s: AbuseSignal): AbuseSignalView => ({ ...s, from: new Date(s.from).toISOString(), to: new Date(s.to).toISOString() });
