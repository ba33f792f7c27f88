import { createHash } from 'node:crypto';
import { CENT, isRefundLine, paymentLine, refundLines, transactionsOf, type LoyaltyCallContext, type LoyaltyClient } from '../../../upstream';

/**
 * After a "duplicate" answer the upstream has only said that an id is taken,
 * not by what. This decides whether the earlier write under that id is this
 * very write, comparing everything the write asserted: the upstream's record
 * for what it shows (the order's transactions: amounts, types, points; the
 * hold lookup), the BFF's own record of the earlier write (the id claim's
 * entry, or a claim that names the payment) for the rest.
 * - `same`: it was applied (perhaps by an attempt whose answer was lost);
 * - `other`: another write holds the id (`absent`: the record does not show
 *   it at all, which after a duplicate answer is someone else's too, but while
 *   settling a claim may only mean it has not landed yet);
 * - `unknown`: some field cannot be shown either way (an entry of an older
 *   release, no entry): never taken for done.
 */
export type Verdict = { kind: 'same' } | { kind: 'other'; why: string; absent?: boolean } | { kind: 'unknown'; why: string };

type Reader = Pick<LoyaltyClient, 'orderTransactions' | 'holdLookup'>;

/** A payment as it was sent. A field left undefined is not asserted (a batch's order names no hold). */
export interface PaymentWrite {
  kind: 'payment';
  paymentId: string;
  customerId: string;
  totalPaid: number;
  /** The hold it redeemed; null: none. */
  hold?: { reference: string; points?: number } | null;
  /** Its coupons: the upstream lock and the codes; null: none. */
  coupons?: { lockReference: string | null; codes: string[] } | null;
}

/** A refund as it was sent: an amount, lines, both, or neither (the whole sale). */
export interface RefundWrite {
  kind: 'refund';
  refundId: string;
  paymentId: string;
  customerId: string;
  /** The amount asked; null: none. */
  amount: number | null;
  /** A digest of the lines asked (refundLinesDigest); null: none. */
  lines: string | null;
}

export type Write = PaymentWrite | RefundWrite;

/**
 * The BFF's own record of the earlier write: the identity fields its id claim
 * stored. Undefined: not shown (an entry of an older release); null: none.
 */
export interface WriteRecord {
  customerId?: string;
  paymentId?: string;
  totalPaid?: number;
  holdReference?: string | null;
  couponLockReference?: string | null;
  couponCodes?: string[] | null;
  refundAmount?: number | null;
  refundLines?: string | null;
  wholeRefund?: boolean;
}

/** What the write's claims found. */
export interface ClaimsShow {
  /** The coupon lock whose own record names this payment (an earlier attempt of it carried the lock), and its codes. */
  carriedLock?: { lockReference: string; codes: string[] };
  /** Set here once the upstream's record showed the hold (its redemption and the hold used, or no redemption): the entry need not. */
  holdShown?: boolean;
}

/**
 * Whether a coupon lock whose own record names the payment shows what the
 * earlier write under the payment's id carried (ClaimsShow.carriedLock): it
 * burned it (`used`), or the lock was claimed (`paying`) by the same attempt
 * as the id's entry, still `recording`: no later than it. A lock claimed
 * after the entry (a lease on the lock, none on an older release's entry, or
 * a later one) was claimed by this write itself, and shows nothing of the earlier one.
 */
export function lockCarriedWith(
  entry: { state?: string; lease?: { at: number } } | null,
  lock: { state: string; lease?: { at: number; adopted?: true } },
): boolean {
  if (lock.state === 'used') return true;
  if (lock.state !== 'paying' || !entry || (entry.state ?? 'recorded') !== 'recording') return false;
  // Claimed by the release before leases (no lease, or one given since): when it was claimed is not known.
  if (!lock.lease || lock.lease.adopted) return true;
  return !!entry.lease && lock.lease.at <= entry.lease.at;
}

/** The identity fields a new entry stores for its write, so a later duplicate can be compared with it. */
export function recordOf(w: Write): WriteRecord {
  if (w.kind === 'refund') {
    return {
      customerId: w.customerId,
      paymentId: w.paymentId,
      // Left out when none (the whole-refund marker says so): the previous release compares a stored amount as a number.
      ...(w.amount !== null ? { refundAmount: w.amount } : {}),
      refundLines: w.lines,
      wholeRefund: w.amount === null && w.lines === null,
    };
  }
  return {
    customerId: w.customerId,
    paymentId: w.paymentId,
    totalPaid: w.totalPaid,
    ...(w.hold !== undefined ? { holdReference: w.hold?.reference ?? null } : {}),
    ...(w.coupons !== undefined ? { couponLockReference: w.coupons?.lockReference ?? null, couponCodes: w.coupons ? sorted(w.coupons.codes) : null } : {}),
  };
}

/** Lines as the upstream is sent them, digested: the same lines in any order give the same digest. */
export function refundLinesDigest(lines: { productId?: string; sku?: string; quantity?: number; price?: number }[] | undefined | null): string | null {
  if (!lines?.length) return null;
  const rows = lines.map((l) => [l.productId ?? '', l.sku ?? '', l.quantity ?? 1, l.price ?? 0].join('|')).sort();
  return createHash('sha256').update(JSON.stringify(rows)).digest('hex').slice(0, 32);
}

const sorted = (codes: string[]) => [...codes].sort();
const sameMoney = (a: number | undefined, b: number) => a !== undefined && Math.abs(a - b) <= CENT;

/** Differences first (any one makes it another write), then what could not be shown. */
function decide(checks: ({ other: string } | { unknown: string } | null)[]): Verdict {
  for (const c of checks) if (c && 'other' in c) return { kind: 'other', why: c.other };
  for (const c of checks) if (c && 'unknown' in c) return { kind: 'unknown', why: c.unknown };
  return { kind: 'same' };
}

/**
 * What the BFF's own record alone says of the earlier write: `other` when a
 * field it shows differs, else `same` (fields it does not show are left to the
 * upstream's record). Used before sending, so a write under a recorded id is
 * refused without asking the upstream, and a till's retry is never refused.
 */
export function recordDiffers(w: Write, r: WriteRecord): string | null {
  const v = decide(recordChecks(w, r, {}));
  return v.kind === 'other' ? v.why : null;
}

function recordChecks(w: Write, r: WriteRecord, claims: ClaimsShow): ({ other: string } | { unknown: string } | null)[] {
  const field = <T>(name: string, asserted: T, shown: T | undefined, same: (a: T, b: T) => boolean = (a, b) => a === b) =>
    shown === undefined ? { unknown: `the earlier write's ${name} is not recorded here` } : same(asserted, shown) ? null : { other: `its ${name} differs` };
  const checks = [field('customer', w.customerId, r.customerId), field('sale', w.paymentId, r.paymentId)];
  if (w.kind === 'payment') {
    if (r.totalPaid !== undefined && !sameMoney(r.totalPaid, w.totalPaid)) checks.push({ other: 'its total paid differs' });
    const hold = w.hold === undefined ? null : field('hold', w.hold?.reference ?? null, r.holdReference);
    checks.push(hold && 'unknown' in hold && claims.holdShown ? null : hold);
    if (w.coupons !== undefined) {
      const lock = field('coupon lock', w.coupons?.lockReference ?? null, r.couponLockReference);
      // A lock whose own record names this payment was carried by the earlier attempt of it, with its codes.
      const carried = claims.carriedLock;
      const lockShown = !!carried && carried.lockReference === w.coupons?.lockReference;
      checks.push(lock && 'unknown' in lock && lockShown ? null : lock);
      const codes = field(
        'coupon codes',
        w.coupons ? sorted(w.coupons.codes).join(',') : null,
        r.couponCodes === undefined ? undefined : (r.couponCodes?.join(',') ?? null),
      );
      const codesShown = lockShown && (w.coupons?.codes ?? []).every((c) => carried.codes.includes(c));
      checks.push(codes && 'unknown' in codes && codesShown ? null : codes);
    }
  } else {
    if (r.refundAmount !== undefined && r.refundAmount !== null && w.amount !== null && !sameMoney(r.refundAmount, w.amount))
      checks.push({ other: 'its amount differs' });
    checks.push(
      field('amount', w.amount, r.refundAmount === undefined && r.wholeRefund === undefined ? undefined : (r.refundAmount ?? null), (a, b) =>
        a === null || b === null ? a === b : sameMoney(a, b),
      ),
    );
    checks.push(field('lines', w.lines, r.refundLines));
    checks.push(field('whole-refund marker', w.amount === null && w.lines === null, r.wholeRefund));
  }
  return checks;
}

/**
 * Is the earlier write under this id (on the upstream's record) this very
 * write? `record`: the BFF's own record of it (null: none). Throws when the
 * upstream's record cannot be read (the caller's outcome is then unknown).
 */
export async function sameWrite(loyalty: Reader, w: Write, record: WriteRecord | null, ctx: LoyaltyCallContext, claims: ClaimsShow = {}): Promise<Verdict> {
  const transactions = await transactionsOf(loyalty, w.paymentId, ctx);
  const own = record ? recordChecks(w, record, claims) : [{ unknown: 'this BFF has no record of the earlier write' }];
  if (w.kind === 'refund') {
    const [line] = refundLines(transactions, w.refundId);
    if (!line) return { kind: 'other', why: `refund ${w.refundId} is not on the record of sale ${w.paymentId}`, absent: true };
    const upstream: ({ other: string } | null)[] = [];
    if (w.amount !== null && !sameMoney(line.amount, w.amount)) upstream.push({ other: `it refunded ${line.amount}, not ${w.amount}` });
    if (w.amount === null && w.lines === null) {
      // A whole refund refunds what was left: with the other refunds, the whole sale's amount.
      const paid = paymentLine(transactions, w.paymentId)?.amount;
      const others = transactions.filter((t) => isRefundLine(t) && t.transactionId !== w.refundId).reduce((s, t) => s + (t.amount ?? 0), 0);
      if (paid === undefined || line.amount === undefined || !sameMoney(line.amount + others, paid))
        upstream.push({ other: `it refunded ${line.amount}, not the rest of the sale` });
    }
    return decide([...upstream, ...own]);
  }
  const paid = paymentLine(transactions, w.paymentId);
  if (!paid) return { kind: 'other', why: `payment ${w.paymentId} is not on the record`, absent: true };
  // Written so that a total that is not a number matches nothing.
  if (!sameMoney(paid.amount, w.totalPaid)) return { kind: 'other', why: `it paid ${paid.amount}, not ${w.totalPaid}` };
  const redeemed = transactions.find((t) => t.transactionType === 'Redemption');
  const holdChecks: ({ other: string } | null)[] = [];
  if (w.hold === null && redeemed) holdChecks.push({ other: 'it redeemed points; this write names no hold' });
  if (w.hold) {
    if (!redeemed) holdChecks.push({ other: 'it redeemed no points' });
    else if (w.hold.points !== undefined && redeemed.equivalentPoints !== undefined && redeemed.equivalentPoints !== w.hold.points)
      holdChecks.push({ other: `it redeemed ${redeemed.equivalentPoints} points, not ${w.hold.points}` });
  }
  const early = decide([...holdChecks, ...own.filter((c) => c && 'other' in c)]);
  if (early.kind === 'other') return early;
  if (!record) return decide(own);
  // The hold itself: used is enough, only this payment's claim ever named it. Its customer is not compared: an
  // account that merges a customer's channels answers the merged profile's id, not the till's.
  if (w.hold && (await loyalty.holdLookup(w.hold.reference, ctx)).state !== 'used') return { kind: 'other', why: `hold ${w.hold.reference} is not used` };
  return decide(recordChecks(w, record, { ...claims, holdShown: w.hold !== undefined }));
}

/** The earlier write under an id cannot be shown to be this one, nor another. */
export class WriteNotShown extends Error {}

/** A verdict that no later look can change: the till gets a final answer, not "send the same request again". */
export class FinalVerdict extends Error {}
/** The upstream's record shows another write under the id: this write (and any earlier attempt of it) never landed under it. */
export class WriteTaken extends FinalVerdict {}
/** The earlier write under the id cannot be shown to be this one, nor another, and no later look can tell (see onRecordOfCall). */
export class WriteUnconfirmed extends FinalVerdict {}

/** The reading of writeOutcome's `onRecord`: same is applied (true), other is refused (false), unknown throws (the outcome is then unknown). */
export async function onRecordOf(verdict: Promise<Verdict>): Promise<boolean> {
  const v = await verdict;
  if (v.kind === 'unknown') throw new WriteNotShown(`the earlier write under this id cannot be shown to be this one: ${v.why}`);
  return v.kind === 'same';
}

/**
 * The till path's reading (claim-step.ts): as onRecordOf, but a verdict no
 * later look can change is final. Another write the upstream's record shows
 * (not `absent`) holds the id (WriteTaken). `unknown` means a field neither
 * record shows, and neither will later (WriteUnconfirmed): the till is told
 * so, not sent round again.
 */
export async function onRecordOfCall(verdict: Promise<Verdict>): Promise<boolean> {
  const v = await verdict;
  if (v.kind === 'other' && !v.absent) throw new WriteTaken(v.why);
  if (v.kind === 'unknown') throw new WriteUnconfirmed(v.why);
  return v.kind === 'same';
}
