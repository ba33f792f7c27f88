import type { AccountLedger } from './ledger';

/** A coupon lock session: the codes reserved for one customer until it is burned, released or lapses. */
export interface CouponLockRecord {
  reference: string;
  customerId: string;
  /** The codes reserved, as sent (a code named twice is reserved twice). */
  codes: string[];
  state: 'active' | 'burned' | 'released' | 'expired';
  createdAt: number;
  expiresAt: number;
  endedAt?: number;
  /** The payment/order (or burn transaction) that used it. */
  burnedBy?: string;
}

/**
 * One account's coupon locks. Kept beside the ledger (keyed by it), so a
 * sandbox reset, which makes a new ledger, starts with no locks.
 */
export class CouponLockBook {
  readonly locks = new Map<string, CouponLockRecord>();

  /** A lock, with its state brought up to `now` (an active lock past its end is expired). */
  get(reference: string, now: number): CouponLockRecord | undefined {
    const lock = this.locks.get(reference);
    if (lock && lock.state === 'active' && now >= lock.expiresAt) this.end(lock, 'expired', lock.expiresAt);
    return lock;
  }

  end(lock: CouponLockRecord, state: Exclude<CouponLockRecord['state'], 'active'>, at: number, burnedBy?: string): void {
    lock.state = state;
    lock.endedAt = at;
    if (burnedBy !== undefined) lock.burnedBy = burnedBy;
  }

  /** Uses of `code` reserved by live locks, in all and for `customerId`, leaving out `except`. */
  reserved(code: string, customerId: string | undefined, now: number, except?: string): { all: number; customer: number } {
    let all = 0;
    let customer = 0;
    for (const lock of this.locks.values()) {
      if (lock.reference === except || lock.state !== 'active' || now >= lock.expiresAt) continue;
      const n = lock.codes.filter((c) => c === code).length;
      all += n;
      if (lock.customerId === customerId) customer += n;
    }
    return { all, customer };
  }
}

const books = new WeakMap<AccountLedger, CouponLockBook>();

export function couponLocksOf(ledger: AccountLedger): CouponLockBook {
  let book = books.get(ledger);
  if (!book) {
    book = new CouponLockBook();
    books.set(ledger, book);
  }
  return book;
}
