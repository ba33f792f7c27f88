import type { HoldState } from '../../contract';
import { sixDigits } from './codes';
import type { ActivityEntry, CustomerRecord, HoldRecord, RefundRecord, TransactionRecord } from './records';

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

  customer(id: string): CustomerRecord | undefined {
    return this.customers.get(id);
  }

  /** Finds the customer, or creates the profile (first payment, hold, event, order, seed). */
  ensureCustomer(id: string, now: number, contact: { email?: string; mobile?: string } = {}): CustomerRecord {
    let c = this.customers.get(id);
    if (!c) {
      c = { id, createdAt: now, hash: sixDigits(), settled: 0, totalEarned: 0 };
      this.customers.set(id, c);
    }
    if (contact.email !== undefined) c.email = contact.email;
    if (contact.mobile !== undefined) c.mobile = contact.mobile;
    return c;
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

  endHold(h: HoldRecord, state: Exclude<HoldState, 'active'>, at: number, usedBy?: string): void {
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

  addRefund(c: CustomerRecord, r: RefundRecord): void {
    this.refunds.set(r.refundTransactionId, r);
    (c.refunds ??= []).push(r.refundTransactionId);
  }

  /** Removes the profile and everything that belongs to it. */
  deleteCustomer(id: string): boolean {
    const c = this.customers.get(id);
    if (!c) return false;
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
    this.customers.delete(id);
    return true;
  }
}
