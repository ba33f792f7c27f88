import { sixDigits } from './codes';
import type { ActivityEntry, CustomerRecord, HoldRecord, HoldRecordState, RefundRecord, TransactionRecord } from './records';

/** How the account joins one customer's ids from different channels (its `channelMerging` setting). */
export type MergeBy = 'none' | 'email' | 'mobile';
export type Contact = { email?: string; mobile?: string };

/** Emails compare without case; mobiles by their digits (and a leading +), so "+20 123" is "+20123". */
function contactKey(field: 'email' | 'mobile', value: string): string {
  return field === 'email' ? value.trim().toLowerCase() : value.replace(/[^0-9+]/g, '');
}

/** Activity kept per customer; older entries fall off so memory stays bounded. */
const MAX_ACTIVITY = 500;

export interface Balance {
  /** settled + pending (held points are still the customer's). */
  total: number;
  available: number;
  pending: number;
  held: number;
}

/**
 * One account's state: customers, holds, transactions and refunds, each in a
 * Map keyed by its id so every request is O(1) in the number of customers.
 * Time-based changes (hold expiry, pending points maturing) happen lazily
 * here, against the `now` the caller passes from the sandbox clock.
 */
export class AccountLedger {
  readonly customers = new Map<string, CustomerRecord>();
  readonly holds = new Map<string, HoldRecord>();
  readonly transactions = new Map<string, TransactionRecord>();
  readonly refunds = new Map<string, RefundRecord>();
  /** Coupon code -> uses by all customers (kept when a customer is deleted: the use happened). */
  readonly couponUses = new Map<string, number>();
  /** Channel merging: another channel's customer id -> the id of the profile it was merged into. */
  readonly channelIds = new Map<string, string>();
  /** Email and mobile (normalised) -> the id of the profile that has it, for channel merging. */
  private readonly contactIndex = { email: new Map<string, string>(), mobile: new Map<string, string>() };
  private lastGameballId = 0;

  /** A customer by its id, or by another channel's id merged into its profile. */
  customer(id: string): CustomerRecord | undefined {
    const own = this.customers.get(id);
    if (own) return own;
    const joined = this.channelIds.get(id);
    return joined === undefined ? undefined : this.customers.get(joined);
  }

  /**
   * The profile a request's customer id belongs to, without changing anything:
   * its own (or a channel id already merged), else, when the account merges
   * channels by `mergeBy`, the profile that already has that email or mobile.
   * Only an id with no profile of its own is merged, so two existing profiles
   * are never joined behind the caller's back.
   */
  profileFor(id: string, contact: Contact = {}, mergeBy: MergeBy = 'none'): CustomerRecord | undefined {
    const known = this.customer(id);
    if (known || mergeBy === 'none') return known;
    const value = contact[mergeBy];
    if (value === undefined || value === '') return undefined;
    const owner = this.contactIndex[mergeBy].get(contactKey(mergeBy, value));
    return owner === undefined ? undefined : this.customers.get(owner);
  }

  /**
   * Finds the customer's profile (see `profileFor`: with channel merging, a new
   * channel id carrying a known email or mobile joins that profile, from now
   * on), or creates it (first payment, event, order, registration, seed; a
   * hold needs an existing one). The contact fields sent update the profile.
   */
  ensureCustomer(id: string, now: number, contact: Contact = {}, mergeBy: MergeBy = 'none'): CustomerRecord {
    let c = this.profileFor(id, contact, mergeBy);
    if (!c) {
      c = { id, gameballId: ++this.lastGameballId, createdAt: now, hash: sixDigits(), settled: 0, totalEarned: 0 };
      this.customers.set(id, c);
    } else if (c.id !== id) {
      this.channelIds.set(id, c.id);
    }
    if (contact.email !== undefined) this.setContact(c, 'email', contact.email);
    if (contact.mobile !== undefined) this.setContact(c, 'mobile', contact.mobile);
    return c;
  }

  /** Sets a contact field and keeps the index merging reads from (the first profile with a value keeps it). */
  private setContact(c: CustomerRecord, field: 'email' | 'mobile', value: string): void {
    const index = this.contactIndex[field];
    const old = c[field];
    if (old !== undefined && index.get(contactKey(field, old)) === c.id) index.delete(contactKey(field, old));
    c[field] = value;
    const key = contactKey(field, value);
    const owner = index.get(key);
    if (owner === undefined || this.customers.get(owner)?.[field] === undefined) index.set(key, c.id);
  }

  rotateHash(c: CustomerRecord): string {
    c.hash = sixDigits(c.hash);
    return c.hash;
  }

  /** A hold, with its state brought up to `now` (an active hold past its end is expired). */
  hold(reference: string, now: number): HoldRecord | undefined {
    const h = this.holds.get(reference);
    if (h && h.state === 'active' && now >= h.expiresAt) {
      this.endHold(h, 'expired', h.expiresAt);
    }
    return h;
  }

  addHold(c: CustomerRecord, hold: HoldRecord): void {
    this.holds.set(hold.reference, hold);
    (c.activeHolds ??= new Set()).add(hold.reference);
    (c.holds ??= []).push(hold.reference);
  }

  endHold(h: HoldRecord, state: Exclude<HoldRecordState, 'active'>, at: number, usedBy?: string): void {
    h.state = state;
    h.endedAt = at;
    if (usedBy !== undefined) h.usedBy = usedBy;
    this.customers.get(h.customerId)?.activeHolds?.delete(h.reference);
  }

  /** Moves pending lots whose return window has ended into the settled balance. */
  private mature(c: CustomerRecord, now: number): void {
    if (!c.pending?.length) return;
    const still = [];
    for (const lot of c.pending) {
      if (lot.availableAt <= now) c.settled += lot.points;
      else still.push(lot);
    }
    c.pending = still.length ? still : undefined;
  }

  balance(c: CustomerRecord, now: number): Balance {
    this.mature(c, now);
    let held = 0;
    if (c.activeHolds) {
      for (const ref of [...c.activeHolds]) {
        const h = this.hold(ref, now);
        if (h?.state === 'active') held += h.points;
      }
    }
    const pending = c.pending?.reduce((sum, lot) => sum + lot.points, 0) ?? 0;
    return { total: c.settled + pending, available: Math.max(0, c.settled - held), pending, held };
  }

  /** Credits earned points, pending until `availableAt` when it is in the future. */
  creditEarned(c: CustomerRecord, points: number, now: number, transactionId: string, availableAt?: number): void {
    if (points <= 0) return;
    c.totalEarned += points;
    if (availableAt !== undefined && availableAt > now) (c.pending ??= []).push({ points, availableAt, transactionId });
    else c.settled += points;
  }

  /** Takes back points earned by a transaction: from its still-pending lot first, then the settled balance. */
  takeBackEarned(c: CustomerRecord, points: number, now: number, transactionId: string): void {
    if (points <= 0) return;
    this.mature(c, now);
    let left = points;
    const lot = c.pending?.find((l) => l.transactionId === transactionId);
    if (lot) {
      const fromLot = Math.min(lot.points, left);
      lot.points -= fromLot;
      left -= fromLot;
      if (lot.points === 0) c.pending = c.pending!.filter((l) => l !== lot);
      if (c.pending && c.pending.length === 0) c.pending = undefined;
    }
    c.settled -= left;
    c.totalEarned -= points;
  }

  recordActivity(c: CustomerRecord, entry: ActivityEntry): void {
    const list = (c.activity ??= []);
    list.push(entry);
    if (list.length > MAX_ACTIVITY) list.splice(0, list.length - MAX_ACTIVITY);
  }

  addTransaction(c: CustomerRecord, t: TransactionRecord): void {
    this.transactions.set(t.id, t);
    (c.transactions ??= []).push(t.id);
  }

  /** Drops one transaction's record (the admin API's "lost record"); what it did to balances, holds and refunds stays. */
  forgetTransaction(t: TransactionRecord): void {
    this.transactions.delete(t.id);
    const c = this.customer(t.customerId);
    if (c?.transactions) c.transactions = c.transactions.filter((id) => id !== t.id);
  }

  addRefund(c: CustomerRecord, r: RefundRecord): void {
    this.refunds.set(r.refundTransactionId, r);
    (c.refunds ??= []).push(r.refundTransactionId);
  }

  /** Removes the profile (found by any of its channel ids) and everything that belongs to it. */
  deleteCustomer(channelId: string): boolean {
    const c = this.customer(channelId);
    if (!c) return false;
    const id = c.id;
    for (const ref of c.holds ?? []) {
      if (this.holds.get(ref)?.customerId === id) this.holds.delete(ref);
    }
    for (const t of c.transactions ?? []) {
      const rec = this.transactions.get(t);
      if (rec?.customerId === id) this.transactions.delete(t);
    }
    for (const r of c.refunds ?? []) {
      const rec = this.refunds.get(r);
      if (rec?.customerId === id) this.refunds.delete(r);
    }
    for (const field of ['email', 'mobile'] as const) {
      const value = c[field];
      if (value !== undefined && this.contactIndex[field].get(contactKey(field, value)) === id) this.contactIndex[field].delete(contactKey(field, value));
    }
    for (const [other, joined] of this.channelIds) if (joined === id) this.channelIds.delete(other);
    this.customers.delete(id);
    return true;
  }
}
