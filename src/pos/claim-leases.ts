import { randomUUID } from 'node:crypto';
import type { RedisClient } from '../platform/redis';
import type { AuditTrail } from './audit';
import { auditGivenUpClaim, auditSettledClaim } from './audit/settled-claims';
import type { SharedDeps } from './context';
import { IdLeaseSweeper } from './money/ids/lease-sweep';
import { settleFromUpstream } from './redemptions/hold-outcome';
import type { Redemption, RedemptionStore } from './redemptions/types';
import type { CouponLock } from './coupons/locks/types';
import { settleSaleId, settleSaleVoid } from './sales/claims';
import { stateOf, type SaleEntry, type SaleRecords } from './sales/records';

/**
 * What settles a claim past its lease, per kind, and the audit entry it
 * writes: the same settle functions the repair queue uses, through the same
 * named transitions. Redemptions and coupon locks are swept by their own
 * sweepers (a claimed record is due at its lease end, see
 * money/records/types.ts dueOf); sale and refund ids by the IdLeaseSweeper.
 */
type Deps = Pick<SharedDeps, 'loyalty' | 'clock' | 'logger' | 'repairs'> & { redemptions: RedemptionStore; sales: SaleRecords; audit?: AuditTrail };

/** What a settlement recorded that is an outcome (the others leave the claim, or were another's doing). */
const OUTCOMES = new Set(['redeemed', 'voided', 'expired', 'recorded']);

/** The hold sweeper's settle: the hold's record decides; a settled claim writes the action's entry. */
export function settleHoldAfterLease(deps: Deps) {
  return async (r: Redemption): Promise<string> => {
    const recorded = await settleFromUpstream(deps, r);
    if (OUTCOMES.has(recorded))
      auditSettledClaim(deps.audit, {
        action: r.state === 'voiding' ? 'redemption_void' : 'payment',
        storeId: r.storeId,
        terminalId: r.terminalId,
        lease: r.lease,
        code: recorded,
        repair: `redemption:${r.id}`,
        subject: {
          customerId: r.customerId,
          redemptionId: r.id,
          paymentId: r.paymentId,
          holdReference: r.holdReference,
          pointsRedeemed: recorded === 'redeemed' ? r.holdPoints : undefined,
        },
      });
    return recorded;
  };
}

/** The coupon lock sweeper's hook: a claimed lock it settled writes the entry of the action that claimed it. */
export function auditCouponLockAfterLease(deps: { audit?: AuditTrail }) {
  return (l: CouponLock, recorded: string): void =>
    auditSettledClaim(deps.audit, {
      action: recorded === 'released' ? 'coupon_release' : 'payment',
      storeId: l.storeId,
      terminalId: l.terminalId,
      lease: l.lease,
      code: recorded,
      repair: `coupon-lock:${l.id}`,
      subject: { customerId: l.customerId, couponLockId: l.id, paymentId: l.paymentId },
    });
}

async function settleSaleClaim(deps: Deps, e: SaleEntry): Promise<string> {
  if (stateOf(e) === 'voiding') {
    const refund = e.voidRefundId ? await deps.sales.get('refund', e.voidRefundId) : null;
    return refund ? settleSaleVoid({ ...deps, sales: deps.sales }, e, refund) : 'unchanged';
  }
  // The entry is the BFF's record of the write that claimed it: the same check as the repair queue's.
  return settleSaleId({ ...deps, sales: deps.sales }, e);
}

/** The audit entry's action and ids of a sale or refund id claim. */
function saleClaimEntry(e: SaleEntry) {
  const voiding = stateOf(e) === 'voiding';
  return {
    action: voiding ? ('sale_void' as const) : e.kind === 'payment' ? ('payment' as const) : ('refund' as const),
    storeId: e.storeId,
    lease: e.lease,
    repair: `sale:${e.kind}:${e.id}`,
    subject:
      e.kind === 'refund'
        ? { customerId: e.customerId, paymentId: e.paymentId, refundId: e.id, amountRefunded: e.refundAmount ?? undefined }
        : { customerId: e.customerId, paymentId: e.id, refundId: voiding ? e.voidRefundId : undefined, amountPaid: voiding ? undefined : e.totalPaid },
  };
}

function auditSaleClaim(deps: Deps, e: SaleEntry, recorded: string): void {
  if (OUTCOMES.has(recorded)) auditSettledClaim(deps.audit, { ...saleClaimEntry(e), code: recorded });
}

/** The sweeper of sale and refund id claims past their lease. */
export function saleLeaseSweeper(
  deps: Deps,
  opts: { intervalMs: number; recheckMs: number; giveUpAfterMs?: number; onGivenUp?: (e: SaleEntry) => void },
): IdLeaseSweeper<SaleEntry> {
  return new IdLeaseSweeper<SaleEntry>({
    records: deps.sales,
    settle: (e) => settleSaleClaim(deps, e),
    onSettled: (e, recorded) => auditSaleClaim(deps, e, recorded),
    onGivenUp: (e) => {
      auditGivenUpClaim(deps.audit, saleClaimEntry(e));
      opts.onGivenUp?.(e);
    },
    giveUpAfterMs: opts.giveUpAfterMs,
    intervalMs: opts.intervalMs,
    recheckMs: opts.recheckMs,
    logger: deps.logger,
    clock: deps.clock,
  });
}

/** Written once the claims of the release before leases were all looked at: never again for this layout. */
export const ADOPTED_MARKER = 'leases:adopted:v1';
/** Taken while one instance looks: the others start without looking; one that dies lets it lapse, and the next start looks. */
const ADOPTING_LOCK_MS = 10 * 60_000;

/** The fleet's once-only record of the adoption (Redis); none for the memory stores, which a restart empties. */
export interface AdoptionMarker {
  /** True when the adoption is done, or another instance is doing it; otherwise this instance holds the lock. */
  doneOrBusy(): Promise<boolean>;
  /** Marks it done for good (after a whole scan). */
  done(): Promise<void>;
  /** Lets the lock go (a scan stopped before its end). */
  release(): Promise<void>;
}

export function redisAdoptionMarker(redis: RedisClient, prefix: string): AdoptionMarker {
  const marker = `${prefix}${ADOPTED_MARKER}`;
  const lock = `${marker}:lock`;
  const token = randomUUID();
  const release = async () => {
    if ((await redis.get(lock)) === token) await redis.del(lock);
  };
  return {
    async doneOrBusy() {
      if (await redis.exists(marker)) return true;
      return (await redis.set(lock, token, 'PX', ADOPTING_LOCK_MS, 'NX')) !== 'OK';
    },
    async done() {
      await redis.set(marker, new Date().toISOString());
      await release();
    },
    release,
  };
}

/**
 * Once across the fleet and for good (a marker in Redis, written after a
 * whole scan, ADOPTED_MARKER), the claims a release before leases left are
 * given one, so the sweeps settle them once it is over rather than when what
 * they claim ends. One instance looks (a lock); the scan reads in batches and
 * ends when the process closes (`stopped`), unmarked, for the next start.
 * Runs in the background; a failure is logged and the claims are settled as
 * before. A claim of the old release changed afterwards is given a lease by
 * that change (../money/lease.ts withLease).
 */
export async function adoptLeaselessClaims(
  deps: Pick<SharedDeps, 'clock' | 'logger'> & {
    redemptions: RedemptionStore;
    couponLocks: { adoptLeaselessClaims(now: number, stopped?: () => boolean): Promise<number> };
    sales: SaleRecords;
  },
  marker: AdoptionMarker | undefined,
  stopped: () => boolean,
): Promise<void> {
  if (!marker) return;
  let locked = false;
  try {
    if (await marker.doneOrBusy()) return;
    locked = true;
    const now = deps.clock();
    const [redemptions, couponLocks, ids] = await Promise.all([
      deps.redemptions.adoptLeaselessClaims(now, stopped),
      deps.couponLocks.adoptLeaselessClaims(now, stopped),
      deps.sales.adoptLeaselessClaims(now, stopped),
    ]);
    if (redemptions + couponLocks + ids > 0)
      deps.logger.warn({ redemptions, couponLocks, ids }, 'claims written without a lease were given one; they are settled once it ends');
    if (stopped()) return;
    await marker.done();
    locked = false;
  } catch (err) {
    deps.logger.warn(
      { err: { message: (err as Error).message } },
      'claims written without a lease could not be looked for; they settle as before (at their hold or lock end)',
    );
  } finally {
    if (locked) await marker.release().catch(() => undefined);
  }
}
