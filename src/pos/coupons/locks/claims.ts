import { applyTransition, COUPON_LOCK_TRANSITIONS } from '../../money/machines';
import { isProblem, problem } from '../../../platform/problem';
import type { LoyaltyClient } from '../../../upstream';
import { lockCarriedWith, onRecordOf, sameWrite, type PaymentWrite, type WriteRecord } from '../../money/ids/same-write';
import type { IdEntry } from '../../money/ids/records';
import type { CouponLock, CouponLockStore } from './types';
import type { CallContext, SharedDeps } from '../../context';
import { recordClaim, type RecordClaim } from '../../money/claim-step';

/** The sale ids' records (sales/records.ts), read for the entry of the payment that claimed a lock: the BFF's record of what it carried. */
export type PaymentIdRecords = { get(kind: 'payment', id: string): Promise<(IdEntry & WriteRecord) | null> };

/** What claiming a coupon lock uses. */
export type CouponLockClaimDeps = Pick<SharedDeps, 'loyalty' | 'repairs' | 'clock' | 'logger'> & { couponLocks: CouponLockStore; sales: PaymentIdRecords };
/** What settling a lock from the upstream's record needs (the sweeper has no more). */
export type SettleDeps = Pick<SharedDeps, 'clock' | 'logger'> & {
  couponLocks: CouponLockStore;
  sales: PaymentIdRecords;
  loyalty: Pick<LoyaltyClient, 'couponRelease' | 'orderTransactions' | 'holdLookup'>;
};

export const couponLockNotFound = (id: string) => problem('coupon_lock_not_found', `Coupon lock ${id} was not found`);

export type CouponLockClaim = RecordClaim<CouponLock>;

async function change(store: CouponLockStore, id: string, now: number, rule: (cur: CouponLock) => CouponLock | Error): Promise<CouponLock> {
  let refusal: Error | undefined;
  const result = await store.change(id, now, (cur) => {
    const next = rule(cur);
    if (next instanceof Error) {
      refusal = next;
      return next.message;
    }
    return next;
  });
  if (!result.ok && result.reason === 'not_found') throw couponLockNotFound(id);
  if (!result.ok) throw refusal ?? problem('coupon_lock_busy', `Coupon lock ${id} could not be claimed: ${result.detail}`);
  return result.lock;
}

/**
 * What a lock a payment claimed became, from the upstream's record of that
 * payment: burned (`used`) when the payment is on record; `abandoned` once the
 * upstream lock has ended without it. Before then it is left for the sweeper,
 * which looks again at its release time.
 */
export async function settleCouponLock(deps: SettleDeps, l: CouponLock): Promise<string> {
  const now = deps.clock();
  let state: 'used' | 'abandoned' | 'released';
  if (l.state === 'paying') {
    // The write as the lock knows it; what the payment carried is the sale id's entry's to say, not the lock's own (it would
    // always match itself). No entry (lost, expired): unknown, and the lock is left as it is, never `used`.
    const write: PaymentWrite = {
      kind: 'payment',
      paymentId: l.paymentId as string,
      customerId: l.customerId,
      totalPaid: typeof l.paidTotal === 'number' ? l.paidTotal : Number.NaN,
      coupons: { lockReference: l.lockReference, codes: l.coupons.map((c) => c.code) },
    };
    const entry = await deps.sales.get('payment', l.paymentId as string);
    const carried = lockCarriedWith(entry, l) ? { carriedLock: { lockReference: l.lockReference, codes: write.coupons?.codes ?? [] } } : {};
    const paid = await onRecordOf(sameWrite(deps.loyalty, write, entry, { requestId: `coupon-lock-check-${l.id}`, priority: 'background' }, carried));
    if (!paid && now < l.expiresAt) return 'left for the sweeper';
    state = paid ? 'used' : 'abandoned';
  } else if (l.state === 'releasing') {
    // A release is harmless to send again; one already done answers "not active", which frees the coupons as well.
    await deps.loyalty.couponRelease(l.lockReference, { requestId: `coupon-lock-release-${l.id}`, priority: 'background' }).catch((err: unknown) => {
      if (!isProblem(err, 'coupon_lock_not_active', 'coupon_lock_not_found')) throw err;
    });
    state = 'released';
  } else {
    return 'unchanged';
  }
  const by = ({ used: 'payApplied', abandoned: 'payLapsed', released: 'releaseApplied' } as const)[state];
  const result = await deps.couponLocks.apply(l.id, deps.clock(), by, {
    when: (cur) => (cur.state === l.state && cur.paymentId === l.paymentId) || `it is ${cur.state}`,
  });
  if (result.ok)
    deps.logger.info(
      { couponLockId: l.id, storeId: l.storeId, customerId: l.customerId, paymentId: l.paymentId, recorded: state },
      'coupon lock settled from the upstream',
    );
  return result.ok ? state : 'unchanged';
}

function settleLater(deps: CouponLockClaimDeps, l: CouponLock): void {
  deps.repairs?.add({ key: `coupon-lock:${l.id}`, settle: () => settleCouponLock(deps, l) });
}

/**
 * A lock claimed by a payment (`paying`): this store's, this customer's,
 * `locked`, and not past its release time; the same payment may claim it again
 * (a till's retry). Applied: `used`. Refused: `locked` again, unless the claim
 * was already this payment's (its record then decides).
 */
export function couponLockForPayment(
  deps: CouponLockClaimDeps,
  ctx: CallContext,
  id: string,
  who: { customerId: string; paymentId: string; totalPaid: number },
): CouponLockClaim {
  return recordClaim(`coupon lock ${id}`, {
    async take() {
      const now = deps.clock();
      let again = false;
      const record = await change(deps.couponLocks, id, now, (cur) => {
        if (cur.storeId !== ctx.identity.store.id) return couponLockNotFound(id);
        if (cur.customerId !== who.customerId) return problem('coupon_lock_customer_mismatch', `Coupon lock ${id} belongs to another customer`);
        const extra = { extra: { state: cur.state } };
        // The same payment again: a claim still `paying` may have landed; `used` was applied.
        again = cur.paymentId === who.paymentId && cur.state === 'paying';
        // A retry keeps the lock's lease as the first attempt took it: when the lock was claimed, against the sale id's
        // claim, is what tells a lock carried by an earlier attempt of this sale (lockCarriedWith).
        if (again || (cur.paymentId === who.paymentId && cur.state === 'used')) return cur;
        if (cur.state === 'releasing') return problem('coupon_lock_not_active', `Coupon lock ${id} is being released; lock the coupons again`, extra);
        if (cur.state === 'used') return problem('coupon_lock_used', `Coupon lock ${id} was already used by payment ${cur.paymentId}`, extra);
        if (cur.state === 'paying') return problem('coupon_lock_in_use', `Coupon lock ${id} is already used by payment ${cur.paymentId}`, extra);
        if (cur.state !== 'locked') return problem('coupon_lock_not_active', `Coupon lock ${id} is ${cur.state}; lock the coupons again`, extra);
        if (cur.releaseAt <= now) return problem('coupon_lock_not_active', `Coupon lock ${id} has run out of time; lock the coupons again`, extra);
        return applyTransition(COUPON_LOCK_TRANSITIONS.pay, cur.state, cur, { args: { paymentId: who.paymentId, paidTotal: who.totalPaid } }) as CouponLock;
      });
      return { record, again };
    },
    finish: () =>
      change(deps.couponLocks, id, deps.clock(), (cur) => {
        const next = applyTransition(COUPON_LOCK_TRANSITIONS.payApplied, cur.state, cur, { when: (c) => c.paymentId === who.paymentId || 'another payment' });
        return typeof next === 'string' ? new Error(`Coupon lock ${id} is ${cur.state}`) : next;
      }),
    async free(l, again) {
      if (again) {
        await settleCouponLock(deps, l).catch(() => settleLater(deps, l));
        return;
      }
      await deps.couponLocks.apply(id, deps.clock(), 'payRefused', { when: (cur) => cur.paymentId === who.paymentId || 'not ours' });
    },
    settleLater: (l) => settleLater(deps, l),
  });
}

/**
 * A lock claimed by the till's release (`releasing`). Applied: `released`.
 * Refused: `locked` again. A lock a payment holds is `coupon_lock_in_use`;
 * a used one `coupon_lock_used`.
 */
export function couponLockForRelease(deps: CouponLockClaimDeps, ctx: CallContext, id: string): CouponLockClaim {
  return recordClaim(`coupon lock ${id}`, {
    async take() {
      let again = false;
      const record = await change(deps.couponLocks, id, deps.clock(), (cur) => {
        if (cur.storeId !== ctx.identity.store.id) return couponLockNotFound(id);
        const extra = { extra: { state: cur.state } };
        if (cur.state === 'used') return problem('coupon_lock_used', `Coupon lock ${id} was used by payment ${cur.paymentId}`, extra);
        if (cur.state === 'paying') return problem('coupon_lock_in_use', `Coupon lock ${id} is being used by payment ${cur.paymentId}`, extra);
        // A second release of the same lock (a till's retry) may carry on: releasing twice is harmless.
        again = cur.state === 'releasing';
        if (again) return cur;
        if (cur.state !== 'locked') return problem('coupon_lock_not_active', `Coupon lock ${id} is ${cur.state}`, extra);
        return applyTransition(COUPON_LOCK_TRANSITIONS.release, cur.state, cur) as CouponLock;
      });
      return { record, again };
    },
    // The sweeper may have abandoned it meanwhile, and released it upstream too.
    finish: () =>
      change(deps.couponLocks, id, deps.clock(), (cur) => {
        if (cur.state === 'abandoned') return cur;
        const next = applyTransition(COUPON_LOCK_TRANSITIONS.releaseApplied, cur.state, cur);
        return typeof next === 'string' ? new Error(`Coupon lock ${id} is ${cur.state}`) : next;
      }),
    async free(l, again) {
      if (again) return settleLater(deps, l);
      await deps.couponLocks.apply(id, deps.clock(), 'releaseRefused');
    },
    settleLater: (l) => settleLater(deps, l),
  });
}
