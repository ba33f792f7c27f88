import { CENT, isPaymentLine, isRefundLine, paymentLine, redeemLinesOf, refundLines } from '../../upstream';
import type { AuditEntry } from '../audit/types';
import type { CouponLock } from '../coupons/locks/types';
import type { OutboxEntry } from '../outbox/types';
import { localTime } from '../audit/store-day';
import type { Anomaly, Figures, ReconciliationRow, RowKind, RowStatus } from './types';
import type { HoldRead, Transaction } from './upstream-reads';

/** The day's entries by what they are about; each entry in exactly one group. */
export interface Grouped {
  sales: Map<string, AuditEntry[]>;
  refunds: Map<string, AuditEntry[]>;
  redemptions: Map<string, AuditEntry[]>;
  locks: Map<string, AuditEntry[]>;
  others: AuditEntry[];
}

/** What was read to check them. */
export interface Facts {
  transactions: Map<string, Transaction[]>;
  holds: Map<string, HoldRead>;
  outbox: Map<string, OutboxEntry | null>;
  locks: Map<string, CouponLock | null>;
  /** The store each refunded sale belongs to, by payment id (null: none known here). */
  saleStores: Map<string, string | null>;
  /** `order:<id>` or `hold:<reference>` that could not be read, with our code of why. */
  unreadable: Map<string, string>;
}

interface Context {
  storeId: string;
  window: { from: number; to: number };
  timeZone: string;
}

/** What a repair recorded that shows the write was applied upstream; and what shows it was not. */
const SETTLED_APPLIED = new Set(['recorded', 'redeemed', 'used', 'voided', 'released']);
const SETTLED_NOT_APPLIED = new Set(['expired', 'abandoned', 'given up']);

const round = (n: number) => Math.round(n * 1000) / 1000;
const sum = (xs: (number | undefined)[]) => round(xs.reduce<number>((s, x) => s + (x ?? 0), 0));
const uniq = (xs: (string | undefined)[]) => [...new Set(xs.filter((x): x is string => !!x))];

function base(kind: RowKind, id: string, list: AuditEntry[]): Omit<ReconciliationRow, 'status' | 'flags' | 'note' | 'bff' | 'upstream'> {
  return {
    kind,
    id,
    customerId: list.find((e) => e.customerId)?.customerId,
    terminalIds: uniq(list.map((e) => e.terminalId)),
    cashierIds: uniq(list.map((e) => e.cashierId)),
    entries: list.map((e) => e.id),
    at: list[0]?.at ?? 0,
  };
}

/** How the BFF's own entries say an action ended. */
type Effective = 'applied' | 'queued' | 'unknown' | 'refused';
function effective(list: AuditEntry[]): Effective {
  if (list.some((e) => e.outcome === 'applied')) return 'applied';
  if (list.some((e) => e.outcome === 'queued')) return 'queued';
  if (list.some((e) => e.outcome === 'unknown' || e.outcome === 'settled')) return 'unknown';
  return 'refused';
}

/** An outcome the till was told was unknown: settled since (a repair, or the same request again), or not. */
function unknownFlag(list: AuditEntry[], timeZone: string): { flag?: Anomaly; words?: string } {
  const i = list.findIndex((e) => e.outcome === 'unknown');
  if (i < 0) return crashFlag(list);
  const after = list.slice(i + 1);
  // In a stable order: a sale's claims settle in whichever order the loyalty service's records allow.
  const settled = after
    .filter((e) => e.outcome === 'settled')
    .map((e) => `${e.code} (${e.repair})`)
    .sort();
  const retried = after.some((e) => e.outcome === 'applied');
  const when = localTime(list[i].at, timeZone);
  if (!settled.length && !retried) return { flag: 'unknown_open', words: `outcome unknown at ${when} (${list[i].code}); not settled yet` };
  return { flag: 'unknown_then_settled', words: `outcome unknown at ${when}; settled: ${[...settled, ...(retried ? ['applied on retry'] : [])].join(', ')}` };
}

/**
 * A hold sent with no answer (the start or the OTP step, outcome unknown):
 * holds carry no id, so neither a record nor a repair can show whether it
 * stands; the manager checks the customer's balance (it lapses by itself).
 */
function unansweredHold(list: AuditEntry[]): { flag?: Anomaly; words?: string } {
  const unanswered = list.some((e) => (e.action === 'redemption_start' || e.action === 'otp_step') && e.outcome === 'unknown');
  const held = list.some((e) => e.holdReference !== undefined);
  return unanswered && !held
    ? { flag: 'hold_unanswered', words: "a hold got no answer: it may stand until it lapses (holds carry no id); check the customer's balance" }
    : {};
}

/** An outcome lost in a crash (the till's answer never left), settled by the lease sweeps: unknown then, settled since. */
function crashFlag(list: AuditEntry[]): { flag?: Anomaly; words?: string } {
  // The action's own entry says it applied: a claim settled after it was not a lost outcome.
  if (list.some((e) => e.outcome === 'applied')) return {};
  const settled = list
    .filter((e) => e.outcome === 'settled' && e.afterCrash)
    .map((e) => `${e.code} (${e.repair})`)
    .sort();
  return settled.length ? { flag: 'unknown_then_settled', words: `outcome lost in a crash; settled after its claim's lease: ${settled.join(', ')}` } : {};
}

const refusals = (list: AuditEntry[]) => `refused (${uniq(list.map((e) => e.code)).join(', ')})`;

/** Does the BFF expect the write on the upstream's record, and with which figures (null: not known here)? */
function bffSide(
  list: AuditEntry[],
  facts: Facts,
  figures: (e: AuditEntry | undefined, result?: Record<string, unknown>) => Figures,
  zero: Figures,
): { expect?: boolean; bff: Figures; status?: RowStatus; flag?: Anomaly; words?: string } {
  const how = effective(list);
  if (how === 'applied') {
    const applied = list.find((e) => e.outcome === 'applied');
    return { expect: true, bff: figures(applied) };
  }
  if (how === 'queued') {
    const q = list.find((e) => e.outcome === 'queued') as AuditEntry;
    const entry = facts.outbox.get(q.outboxId as string);
    if (entry === undefined || entry === null) return { bff: figures(undefined), words: `queued (${q.outboxId}); the outbox no longer keeps it` };
    if (entry.state === 'delivered') return { expect: true, bff: figures(undefined, entry.result), words: `queued, delivered from the outbox (${entry.id})` };
    if (entry.state === 'dead' || entry.state === 'discarded')
      return {
        expect: false,
        bff: zero,
        status: 'dead_letter',
        flag: 'dead_letter',
        words: `${entry.state} in the outbox (${entry.id}: ${entry.lastError?.code ?? 'refused'})`,
      };
    return { expect: false, bff: zero, status: 'queued', flag: 'queued', words: `still queued in the outbox (${entry.id})` };
  }
  const settled = list.filter((e) => e.outcome === 'settled').map((e) => e.code ?? '');
  if (settled.some((c) => SETTLED_APPLIED.has(c))) return { expect: true, bff: figures(undefined) };
  if (settled.some((c) => SETTLED_NOT_APPLIED.has(c))) return { expect: false, bff: zero };
  return { bff: figures(undefined) };
}

function compare(bff: Figures, upstream: Figures): string[] {
  const off: string[] = [];
  for (const [k, b] of Object.entries(bff) as [keyof Figures, number | null | undefined][]) {
    const u = upstream[k];
    if (typeof b === 'number' && typeof u === 'number' && Math.abs(b - u) > CENT) off.push(`${k} ${b} here, ${u} there`);
  }
  return off;
}

/** The row's verdict from what the BFF expects and what the upstream shows. */
function verdict(
  side: ReturnType<typeof bffSide>,
  onRecord: boolean,
  bff: Figures,
  upstream: Figures,
): { status: RowStatus; flags: Anomaly[]; words: string[] } {
  const flags: Anomaly[] = side.flag ? [side.flag] : [];
  const words = side.words ? [side.words] : [];
  if (side.expect === true && !onRecord)
    return { status: 'missing_upstream', flags: [...flags, 'missing_upstream'], words: [...words, "not on the loyalty service's record"] };
  if (side.expect === false && onRecord) return { status: 'mismatch', flags: [...flags, 'mismatch'], words: [...words, "yet on the loyalty service's record"] };
  if (side.expect === false) return { status: side.status ?? 'not_applied', flags, words };
  if (!onRecord) return { status: 'not_applied', flags, words: [...words, "not on the loyalty service's record"] };
  const off = compare(bff, upstream);
  if (off.length) return { status: 'mismatch', flags: [...flags, 'mismatch'], words: [...words, ...off] };
  return { status: 'matched', flags, words };
}

/** A sale's or refund's row when the order's record could not be read: what the BFF knows, nothing compared. */
function unreadableOrder(reason: string, flags: Anomaly[], notes: string[], bff: Figures) {
  return {
    status: 'not_checked' as const,
    flags: [...flags, 'not_checked' as const],
    note: [...notes, `record unreadable (${reason})`].join('; '),
    bff,
    upstream: {},
  };
}

function saleRow(id: string, list: AuditEntry[], facts: Facts, ctx: Context): ReconciliationRow {
  const row = base('sale', id, list);
  const amountPaid = list.find((e) => e.amountPaid !== undefined)?.amountPaid ?? null;
  const withRedemption = list.some((e) => e.redemptionId);
  if (effective(list) === 'refused') return { ...row, status: 'refused', flags: [], note: refusals(list), bff: {}, upstream: {} };
  const zero = { paid: 0, earned: 0, redeemed: 0 };
  const side = bffSide(
    list,
    facts,
    (e, result) => {
      if (e) {
        if (e.code === 'already_recorded') return { paid: amountPaid, earned: null, redeemed: null };
        return { paid: amountPaid, earned: e.pointsEarned ?? null, redeemed: e.pointsRedeemed ?? (withRedemption ? null : 0) };
      }
      if (result && result.alreadyRecorded !== true)
        return {
          paid: amountPaid,
          earned: typeof result.pointsEarned === 'number' ? result.pointsEarned : null,
          redeemed: typeof result.pointsRedeemed === 'number' ? result.pointsRedeemed : 0,
        };
      return { paid: amountPaid, earned: null, redeemed: null };
    },
    zero,
  );
  const unknown = unknownFlag(list, ctx.timeZone);
  const flags: Anomaly[] = unknown.flag ? [unknown.flag] : [];
  const notes: string[] = [`paid ${amountPaid ?? '?'}`, ...(unknown.words ? [unknown.words] : [])];
  const unreadable = facts.unreadable.get(`order:${id}`);
  if (unreadable) return { ...row, ...unreadableOrder(unreadable, flags, notes, side.bff) };
  const tx = facts.transactions.get(id) ?? [];
  const paid = paymentLine(tx, id);
  const upstream: Figures = paid
    ? {
        paid: paid.amount ?? null,
        earned: paid.equivalentPoints ?? null,
        redeemed: sum(tx.filter((t) => t.transactionType === 'Redemption').map((t) => t.equivalentPoints)),
      }
    : zero;
  const v = verdict(side, !!paid, side.bff, upstream);
  return { ...row, status: v.status, flags: [...flags, ...v.flags], note: [...notes, ...v.words].join('; '), bff: side.bff, upstream };
}

function refundRow(id: string, list: AuditEntry[], facts: Facts, ctx: Context): ReconciliationRow {
  const kind: RowKind = list.some((e) => e.action === 'sale_void') ? 'sale_void' : 'refund';
  const paymentId = list.find((e) => e.paymentId)?.paymentId;
  const row = { ...base(kind, id, list), paymentId };
  if (effective(list) === 'refused') return { ...row, status: 'refused', flags: [], note: refusals(list), bff: {}, upstream: {} };
  const zero = { refunded: 0, takenBack: 0, givenBack: 0 };
  const side = bffSide(
    list,
    facts,
    (e, result) => {
      // A refund's answer does not say what points it gave back: only the upstream's record does.
      if (e)
        return e.code === 'already_refunded'
          ? { refunded: null, takenBack: null, givenBack: null }
          : { refunded: e.amountRefunded ?? null, takenBack: e.pointsTakenBack ?? null, givenBack: null };
      if (result && result.alreadyRecorded !== true)
        return {
          refunded: typeof result.amountRefunded === 'number' ? result.amountRefunded : null,
          takenBack: typeof result.pointsReversed === 'number' ? result.pointsReversed : null,
          givenBack: null,
        };
      return { refunded: null, takenBack: null, givenBack: null };
    },
    zero,
  );
  const unknown = unknownFlag(list, ctx.timeZone);
  const flags: Anomaly[] = unknown.flag ? [unknown.flag] : [];
  const notes: string[] = [`of sale ${paymentId ?? '?'}`, ...(unknown.words ? [unknown.words] : [])];
  const owner = paymentId ? facts.saleStores.get(paymentId) : undefined;
  if (owner && owner !== ctx.storeId) {
    flags.push('other_store_sale');
    notes.push(`a sale of ${owner}`);
  }
  const unreadable = paymentId ? facts.unreadable.get(`order:${paymentId}`) : undefined;
  if (unreadable) return { ...row, ...unreadableOrder(unreadable, flags, notes, side.bff) };
  const tx = paymentId ? (facts.transactions.get(paymentId) ?? []) : [];
  const upstream = refundFigures(tx, id);
  const v = verdict(side, upstream !== undefined, side.bff, upstream ?? zero);
  return { ...row, status: v.status, flags: [...flags, ...v.flags], note: [...notes, ...v.words].join('; '), bff: side.bff, upstream: upstream ?? zero };
}

/** A refund id's figures on the upstream's record of its sale; undefined when it is not there. */
function refundFigures(tx: Transaction[], refundId: string): Figures | undefined {
  const refunded = refundLines(tx, refundId);
  if (!refunded.length) return undefined;
  const back = tx.filter((t) => t.transactionType === 'Cancel' && t.transactionId === refundId);
  return {
    refunded: sum(refunded.map((t) => t.amount)),
    takenBack: sum(refunded.map((t) => t.equivalentPoints)),
    givenBack: sum(back.map((t) => t.equivalentPoints)),
  };
}

/** Refunds on the record of this store's sales that no action of this store made, within the window. */
function upstreamOnly(g: Grouped, facts: Facts, ctx: Context): ReconciliationRow[] {
  const rows: ReconciliationRow[] = [];
  for (const [paymentId, list] of g.sales) {
    if (effective(list) === 'refused') continue;
    const tx = facts.transactions.get(paymentId) ?? [];
    const ids = uniq(tx.filter((t) => isRefundLine(t) || t.transactionType === 'Cancel').map((t) => t.transactionId));
    for (const refundId of ids) {
      if (g.refunds.has(refundId)) continue;
      const own = tx.filter((t) => t.transactionId === refundId);
      const at = own.find((t) => t.transactionDate !== undefined)?.transactionDate;
      if (at !== undefined && (at < ctx.window.from || at > ctx.window.to)) continue;
      rows.push({
        kind: 'refund',
        id: refundId,
        paymentId,
        customerId: list[0].customerId,
        terminalIds: [],
        cashierIds: [],
        status: 'upstream_only',
        flags: ['upstream_only'],
        note: `of sale ${paymentId}; on the loyalty service's record, not done by this store (another branch, or outside this BFF)`,
        bff: { refunded: 0, takenBack: 0, givenBack: 0 },
        upstream: refundFigures(tx, refundId) ?? {},
        entries: [],
        at: at ?? list[0].at,
      });
    }
  }
  return rows;
}

function redemptionRow(id: string, list: AuditEntry[], g: Grouped, facts: Facts, ctx: Context): ReconciliationRow {
  const row = base('redemption', id, list);
  const unknown = unknownFlag(list, ctx.timeZone);
  const lost = unansweredHold(list);
  const flags: Anomaly[] = [unknown.flag, lost.flag].filter((f): f is Anomaly => f !== undefined);
  const notes: string[] = [unknown.words, lost.words].filter((w): w is string => w !== undefined);
  const done = (status: RowStatus, more: Anomaly[], words: string[]): ReconciliationRow => ({
    ...row,
    status,
    flags: [...flags, ...more],
    note: [...words, ...notes].join('; '),
    bff: {},
    upstream: {},
  });
  // A stand-in first: its row may hold no start of the day (a shortfall settled after midnight, a wait for approval that lapsed).
  const standIn = standInOf(id, list, g, facts);
  if (standIn) return { ...row, ...standInVerdict(id, standIn, facts, flags, notes) };
  const held = heldEntry(list);
  const points = held?.pointsHeld !== undefined ? `${held.pointsHeld} points held` : 'points held';
  if (!held) {
    if (list.some((e) => e.code === 'otp_sent')) return done('no_hold', [], ['code sent, never confirmed: no points held']);
    if (effective(list) === 'refused') return done('refused', [], [refusals(list)]);
    return done('not_checked', [], ['no hold known here']);
  }
  const sales = [...g.sales.values()].filter((s) => s.some((e) => e.redemptionId === id));
  const usedBy = sales.find((s) => (facts.transactions.get(s[0].paymentId as string) ?? []).some((t) => t.transactionType === 'Redemption'));
  if (usedBy) return done('used', [], [`${points}; used by sale ${usedBy[0].paymentId}`]);
  const reference = list.find((e) => e.holdReference)?.holdReference;
  const unreadable = reference ? facts.unreadable.get(`hold:${reference}`) : 'no hold reference';
  const hold = reference ? facts.holds.get(reference) : undefined;
  if (unreadable || hold === undefined || hold === 'not_found')
    return done('not_checked', ['not_checked'], [points, `hold not found (${unreadable ?? 'not_found'})`]);
  const voided = list.some((e) => e.action === 'redemption_void' && (e.outcome === 'applied' || (e.outcome === 'settled' && e.code === 'voided')));
  if (hold.state === 'used') {
    if (sales.length) return done('used', [], [`${points}; used by sale ${sales[0][0].paymentId}`]);
    return done('mismatch', ['mismatch'], [points, 'the hold was used, by no sale of this store']);
  }
  if (hold.state === 'expired' || hold.state === 'released') {
    if (voided) return done('voided', [], [`${points}; voided, the hold released`]);
    return done('lapsed', ['hold_lapsed'], [points, 'neither paid nor voided: the hold ran out']);
  }
  if (hold.state === 'active') return done('open', ['hold_open'], [points, 'neither paid nor voided: the hold is still active']);
  return done('not_checked', ['not_checked'], [points, `hold state ${hold.state ?? 'not given'}`]);
}

/** The entry that says points were held (a hold placed, or a stand-in taken). */
function heldEntry(list: AuditEntry[]): AuditEntry | undefined {
  return list.find(
    (e) => (e.action === 'redemption_start' && e.outcome === 'applied' && e.code !== 'otp_sent') || (e.action === 'otp_step' && e.outcome === 'applied'),
  );
}

/**
 * What this BFF believes of a stand-in redemption's redeem (src/pos/sales/stand-in-sale.ts): its entries, and the
 * outbox entry that carries its redeem and sale (kept OUTBOX_STATUS_TTL_HOURS, a week by default: longer than the
 * redemption's own record, and it says what the delivery settled even when the settling day is another):
 * - `open`: not paid; `lapsed`: not paid in time (its `stand_in_lapsed` entry); `voided`: voided before a payment;
 * - `pending`: its sale's entry not yet delivered: nothing to compare yet;
 * - `redeemed` / `short`: what the delivery settled (the loyalty service took the points, or refused them for the balance);
 * - `given_up`: the entry dead or discarded: the sale was given up, the redeem expected nowhere (it may have landed before the sale failed);
 * - `unknown`: the outbox no longer keeps the entry.
 */
export interface StandInBelief {
  points: number | undefined;
  paymentId?: string;
  outboxId?: string;
  /** Who rang it up (its `stand_in_short` entry, else its start). */
  rungUpBy: { cashierId?: string; shiftId?: string };
  state: 'open' | 'lapsed' | 'voided' | 'pending' | 'redeemed' | 'short' | 'given_up' | 'unknown';
}

/** A stand-in redemption's belief; undefined for a redemption with a hold. */
export function standInOf(id: string, list: AuditEntry[], g: Grouped, facts: Pick<Facts, 'outbox'>): StandInBelief | undefined {
  const short = list.find((e) => e.action === 'stand_in_short');
  const lapsed = list.find((e) => e.action === 'stand_in_lapsed');
  // Its start, or (on a later day than the start, or for a wait for approval, which has no accepted start) what ended it.
  const held = heldEntry(list) ?? short ?? lapsed;
  if (!held || (!short && !lapsed && held.code !== 'stand_in' && !list.some((e) => e.action === 'stand_in_approve' && e.outcome === 'applied')))
    return undefined;
  const points = short?.pointsHeld ?? held.pointsHeld;
  const sale = [...g.sales.values()].find((s) => s.some((e) => e.redemptionId === id) && effective(s) !== 'refused');
  const outboxId = short?.outboxId ?? sale?.find((e) => e.outcome === 'queued')?.outboxId;
  const rungUpBy = { cashierId: short?.cashierId ?? held.cashierId, shiftId: short?.shiftId ?? held.shiftId };
  const base = { points, paymentId: short?.paymentId ?? sale?.[0].paymentId, outboxId, rungUpBy };
  if (short) return { ...base, state: 'short' };
  if (list.some((e) => e.action === 'redemption_void' && e.outcome === 'applied')) return { ...base, state: 'voided' };
  if (!sale) return { ...base, state: lapsed ? 'lapsed' : 'open' };
  const entry = outboxId ? facts.outbox.get(outboxId) : undefined;
  if (!entry) return { ...base, state: 'unknown' };
  if (entry.state === 'dead' || entry.state === 'discarded') return { ...base, state: 'given_up' };
  if (entry.state !== 'delivered') return { ...base, state: 'pending' };
  const outcome = (entry.result?.standIn as { outcome?: unknown } | undefined)?.outcome;
  return { ...base, state: outcome === 'redeemed' || outcome === 'short' ? outcome : 'unknown' };
}

/** Whether the reconciliation reads the loyalty service's record of the stand-in's redeem: once a delivery settled it, or might have. */
export const standInRead = (b: StandInBelief): boolean => b.state !== 'open' && b.state !== 'lapsed' && b.state !== 'voided' && b.state !== 'pending';

/**
 * A stand-in's row: what this BFF believes of its redeem against the loyalty service's record of the
 * redemption id (the redeem's transaction id): redeemed here, exactly one redeem of its points there;
 * short or given up here, none there. A pending one is not compared yet.
 */
function standInVerdict(
  id: string,
  b: StandInBelief,
  facts: Facts,
  flags: Anomaly[],
  notes: string[],
): Pick<ReconciliationRow, 'status' | 'flags' | 'note' | 'bff' | 'upstream'> {
  const pts = `${b.points ?? '?'} points`;
  const paid = `paid by sale ${b.paymentId ?? '?'}`;
  const row = (status: RowStatus, more: Anomaly[], words: string[], bff: Figures = {}, upstream: Figures = {}) => ({
    status,
    flags: [...flags, ...more],
    note: [...words, ...notes].join('; '),
    bff,
    upstream,
  });
  const short = b.state === 'short' ? (['stand_in_short'] as Anomaly[]) : [];
  const said =
    b.state === 'short'
      ? `stand-in: ${pts} not redeemed (the balance refused them when settled); cashier ${b.rungUpBy.cashierId ?? 'not named'}, shift ${b.rungUpBy.shiftId ?? 'not named'}`
      : `stand-in: ${pts}`;
  if (b.state === 'voided') return row('voided', [], [`${said}; voided before its payment`]);
  if (b.state === 'open') return row('open', [], [`${said}; not paid`]);
  if (b.state === 'lapsed') return row('lapsed', [], [`${said}; not paid in time: lapsed, its points given back to the limits`]);
  if (b.state === 'pending') return row('pending', [], [`${said}; ${paid}, its redeem still queued in the outbox (${b.outboxId ?? '?'})`]);
  const unreadable = facts.unreadable.get(`order:${id}`);
  if (unreadable) return row(short.length ? 'mismatch' : 'not_checked', [...short, 'not_checked'], [said, `its redeem's record unreadable (${unreadable})`]);
  const lines = redeemLinesOf(facts.transactions.get(id) ?? []);
  const each = lines.map((t) => (t.equivalentPoints === undefined ? null : Math.abs(t.equivalentPoints)));
  const upstream: Figures = { redeemed: each.includes(null) ? null : sum(each as number[]) };
  const there = !lines.length
    ? `the loyalty service has no redeem under ${id}`
    : `the loyalty service has ${lines.length === 1 ? 'a redeem' : `${lines.length} redeems`} of ${each.map((p) => p ?? '?').join(', ')} points under ${id}`;
  if (b.state === 'redeemed') {
    const bff = { redeemed: b.points ?? null };
    if (lines.length === 1 && each[0] !== null && each[0] === b.points)
      return row('matched', [], [`${said}; ${paid}, redeemed from the outbox (${b.outboxId})`], bff, upstream);
    return row('mismatch', ['stand_in_redeem_mismatch'], [`${said}; ${paid}, redeemed here from the outbox (${b.outboxId})`, there], bff, upstream);
  }
  if (b.state === 'short') {
    if (!lines.length) return row('mismatch', short, [said], { redeemed: 0 }, upstream);
    return row('mismatch', [...short, 'stand_in_redeem_mismatch'], [said, `yet ${there}`], { redeemed: 0 }, upstream);
  }
  if (b.state === 'given_up') {
    const why = `${said}; ${paid}, given up in the outbox (${b.outboxId}): not redeemed here`;
    if (!lines.length) return row('not_applied', [], [why], { redeemed: 0 }, upstream);
    return row('mismatch', ['stand_in_redeem_mismatch'], [why, `yet ${there}`], { redeemed: 0 }, upstream);
  }
  // The outbox no longer keeps the entry: whether the redeem was refused is not known here, so none is not flagged;
  // but a redeem there must still be the one this stand-in could have made (one, of its points).
  const why = `${said}; ${paid}, the outbox no longer keeps its entry (${b.outboxId ?? '?'})`;
  if (!lines.length) return row('not_applied', [], [why, there], { redeemed: null }, upstream);
  if (lines.length === 1 && each[0] === b.points) return row('matched', [], [why, there], { redeemed: b.points ?? null }, upstream);
  return row('mismatch', ['stand_in_redeem_mismatch'], [why, there], { redeemed: null }, upstream);
}

function lockRow(id: string, list: AuditEntry[], facts: Facts, ctx: Context): ReconciliationRow {
  const row = base('coupon_lock', id, list);
  const unknown = unknownFlag(list, ctx.timeZone);
  const flags: Anomaly[] = unknown.flag ? [unknown.flag] : [];
  const locked = list.find((e) => e.action === 'coupon_lock' && e.outcome === 'applied');
  const coupons = locked?.names?.length ? `coupons ${locked.names.join(' ')}` : 'coupons';
  const done = (status: RowStatus, more: Anomaly[], words: string[]): ReconciliationRow => ({
    ...row,
    status,
    flags: [...flags, ...more],
    note: [...words, ...(unknown.words ? [unknown.words] : [])].join('; '),
    bff: {},
    upstream: {},
  });
  if (!locked) return done(effective(list) === 'refused' ? 'refused' : 'not_checked', [], [refusals(list)]);
  const lock = facts.locks.get(id);
  if (!lock) return done('not_checked', ['not_checked'], [coupons, "the lock's record is no longer kept"]);
  // The interface has no lock lookup: a used lock is checked through its sale's record.
  if (lock.state === 'used') {
    const sale = lock.paymentId ? facts.transactions.get(lock.paymentId) : undefined;
    if (sale?.some(isPaymentLine)) return done('used', [], [`${coupons}; used by sale ${lock.paymentId}`]);
    return done('mismatch', ['mismatch'], [coupons, `used by sale ${lock.paymentId}, which is not on the loyalty service's record`]);
  }
  if (lock.state === 'released') return done('released', [], [`${coupons}; released`]);
  if (lock.state === 'abandoned') return done('lapsed', ['lock_lapsed'], [coupons, 'neither used nor released: released when it ran out']);
  return done('open', ['lock_open'], [coupons, `still ${lock.state}`]);
}

/** The row an entry without a record id is listed under (a refused start or lock has no id yet): every action named, so none passes as another. */
const OTHER_KINDS: Record<AuditEntry['action'], RowKind> = {
  redemption_start: 'redemption',
  otp_step: 'redemption',
  redemption_void: 'redemption',
  payment: 'sale',
  refund: 'refund',
  sale_void: 'sale_void',
  coupon_lock: 'coupon_lock',
  coupon_release: 'coupon_lock',
  customer_registration: 'customer',
  customer_deletion: 'customer',
  events: 'events',
  batch_upload: 'batch_upload',
  stand_in_short: 'redemption',
  stand_in_approve: 'redemption',
  stand_in_lapsed: 'redemption',
};

/** Actions the interface keeps no readable record of: listed with their outcome here, and what the outbox did with them. */
function otherRows(g: Grouped, facts: Facts, ctx: Context): ReconciliationRow[] {
  const byAction = new Map<string, AuditEntry[]>();
  for (const e of g.others) push(byAction, `${e.action}:${e.requestId ?? e.id}`, e);
  return [...byAction.values()].map((list) => {
    const e = list[0];
    const row = base(OTHER_KINDS[e.action], e.id, list);
    const what = `${e.action.replace('_', ' ')}${e.names?.length ? ` ${e.names.slice(0, 5).join(' ')}` : ''}`;
    const unknown = unknownFlag(list, ctx.timeZone);
    const lost = unansweredHold(list);
    const flags: Anomaly[] = [unknown.flag, lost.flag].filter((f): f is Anomaly => f !== undefined);
    const how = effective(list);
    if (how === 'refused') return { ...row, status: 'refused', flags, note: `${what}: ${refusals(list)}`, bff: {}, upstream: {} };
    const side = how === 'queued' ? bffSide(list, facts, () => ({}), {}) : undefined;
    if (side?.flag) flags.push(side.flag);
    const words = [
      what,
      side?.words ?? (how === 'applied' ? `applied${e.code ? ` (${e.code})` : ''}` : ''),
      unknown.words,
      lost.words,
      'no readable record upstream to compare',
    ];
    return { ...row, status: side?.status ?? 'recorded_here', flags, note: words.filter(Boolean).join('; '), bff: {}, upstream: {} };
  });
}

const push = <K, V>(m: Map<K, V[]>, k: K, v: V) => m.set(k, [...(m.get(k) ?? []), v]);

/** Every row of the store's day, in time order. */
export function rowsOfStore(g: Grouped, facts: Facts, ctx: Context): ReconciliationRow[] {
  return [
    ...[...g.sales].map(([id, list]) => saleRow(id, list, facts, ctx)),
    ...[...g.refunds].map(([id, list]) => refundRow(id, list, facts, ctx)),
    ...upstreamOnly(g, facts, ctx),
    ...[...g.redemptions].map(([id, list]) => redemptionRow(id, list, g, facts, ctx)),
    ...[...g.locks].map(([id, list]) => lockRow(id, list, facts, ctx)),
    ...otherRows(g, facts, ctx),
  ].sort((a, b) => a.at - b.at);
}
