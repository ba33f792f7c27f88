import { isProblem, problem } from '../../platform/problem';
import type { CustomerRegistered, RegisterCustomerBody } from './schemas';
import type { CallContext, SharedDeps } from '../context';
import type { PosSettings } from '../settings';
import { countRegistration } from './metrics';
import { audited, type AuditDeps } from '../audit/record';
import { eraseCustomerData, openWorkOf, type ErasureDeps } from '../privacy/erasure';
import type { ErasureFollowUp } from '../privacy/follow-up';
import type { StandInLedger } from '../stand-in/ledger';
import { storePolicy } from '../terminals/policy';

/** What the customer use cases are given. */
export type CustomerDeps = Pick<SharedDeps, 'loyalty' | 'logger' | 'metrics'> &
  AuditDeps & {
    settings: Pick<PosSettings, 'kioskQr' | 'standIn'>;
    /** Where a lookup leaves the customer's last known balance, for a stand-in redemption (STAND_IN); absent: not kept. */
    standInLedger?: StandInLedger;
    clock?: () => number;
  };
/** Deleting a customer also erases what every store keeps about them. */
export type CustomerDeletionDeps = CustomerDeps & ErasureDeps & { erasureFollowUp?: ErasureFollowUp };

/**
 * "Seen": the customer's last known available balance and when, kept for
 * STAND_IN_SEEN_MINUTES where stand-in is on for the store. Best effort: a
 * lookup never fails for it (the customer then simply cannot be stood in for).
 */
async function rememberSeen(deps: CustomerDeps, ctx: CallContext, customerId: string, available: number): Promise<void> {
  const standIn = storePolicy(ctx.identity.store, { standIn: deps.settings.standIn }).standIn;
  if (!deps.standInLedger || standIn?.mode !== 'on') return;
  await deps.standInLedger.seen(customerId, available, (deps.clock ?? Date.now)(), standIn.seenMinutes * 60_000).catch((err) => {
    deps.logger.warn({ requestId: ctx.requestId, err: (err as Error).message }, 'could not keep the last known balance for stand-in');
  });
}

/**
 * One summary for the till: balance, tier progress and coupons, fetched in
 * parallel. The balance is essential; tier and coupons are shown when they
 * come back and listed in `unavailable` when they do not.
 */
export async function customerSummary(deps: CustomerDeps, ctx: CallContext, customerId: string, lang?: string) {
  const c = { requestId: ctx.requestId };
  const [balance, tier, coupons] = await Promise.allSettled([
    deps.loyalty.balance(customerId, c),
    deps.loyalty.tierProgress(customerId, { lang }, c),
    deps.loyalty.coupons(customerId, c),
  ]);
  if (balance.status === 'rejected') throw balance.reason;
  const unavailable: string[] = [];
  for (const [name, result] of [
    ['tier', tier],
    ['coupons', coupons],
  ] as const) {
    if (result.status === 'rejected') {
      if (isProblem(result.reason, 'customer_not_found')) throw result.reason;
      unavailable.push(name);
      deps.logger.warn({ requestId: ctx.requestId, part: name, err: (result.reason as Error).message }, 'customer summary part unavailable');
    }
  }
  const b = balance.value;
  await rememberSeen(deps, ctx, customerId, b.availablePointsBalance);
  // Only the available balance is sure to be there; the rest of the published balance is optional.
  const orNull = (n: number | undefined) => n ?? null;
  return {
    customerId,
    currency: b.currency ?? null,
    pointsName: b.pointsName ?? null,
    points: {
      available: b.availablePointsBalance,
      pending: orNull(b.pendingPoints),
      total: orNull(b.totalPointsBalance),
      held: orNull(b.heldPoints),
      earnedAllTime: orNull(b.totalEarnedPoints),
    },
    value: { available: orNull(b.availablePointsValue), pending: orNull(b.pendingPointsValue), total: orNull(b.totalPointsValue) },
    tier:
      tier.status === 'fulfilled'
        ? { current: tier.value.current.name, next: tier.value.next?.name ?? null, progress: tier.value.progress, nextAt: tier.value.next?.minProgress ?? null }
        : null,
    coupons:
      coupons.status === 'fulfilled'
        ? coupons.value.coupons.map((cp) => ({
            code: cp.code,
            name: cp.name ?? null,
            value: orNull(cp.value),
            currency: cp.currency ?? null,
            expiresAt: cp.expiryDate !== undefined ? new Date(cp.expiryDate).toISOString() : null,
            usable: cp.isAvailableToUse ?? null,
          }))
        : null,
    unavailable,
  };
}

/**
 * Deletes the customer upstream, then erases what this BFF keeps about them
 * (src/pos/privacy; docs/operator/privacy.md). Refused with 409
 * customer_has_open_work, before anything is deleted, while their points or
 * money are in flight here. The upstream's refusal or an unknown outcome
 * erases nothing; its "no such customer" erases too (a retry after an erasure
 * that failed half-way) and is still answered 404. The trail's entry names
 * the pseudonym, never the id.
 */
export async function deleteCustomer(deps: CustomerDeletionDeps, ctx: CallContext, customerId: string) {
  const open = await openWorkOf(deps, customerId);
  if (open.length) {
    throw problem('customer_has_open_work', `The customer has points or money in flight here: ${open.join(', ')}; finish these, then delete again`, {
      extra: { open },
    });
  }
  return audited(deps, ctx, 'customer_deletion', { customerId: deps.customerPseudonym(customerId) }, async (c) => {
    try {
      await deps.loyalty.deleteCustomer(customerId, { requestId: c.requestId });
    } catch (err) {
      if (isProblem(err, 'customer_not_found')) await erase(deps, customerId);
      throw err;
    }
    const erased = await erase(deps, customerId);
    return { customerId, deleted: true, erased };
  });
}

async function erase(deps: CustomerDeletionDeps, customerId: string) {
  const erased = await eraseCustomerData(deps, customerId);
  deps.erasureFollowUp?.schedule(customerId);
  deps.logger.info({ pseudonym: deps.customerPseudonym(customerId), erased }, 'customer erasure: first pass done');
  return erased;
}

/**
 * The customer's current hash, for a kiosk to show as the QR code. The hash is
 * the customer's proof of presence at a till, and a kiosk knows the customer
 * only by the id it was given, so it is handed out only where the store says
 * its kiosks establish who the customer is (KIOSK_QR; off in production).
 */
export async function customerHash(deps: CustomerDeps, ctx: CallContext, customerId: string) {
  if (!deps.settings.kioskQr) {
    throw problem('kiosk_qr_off', "Kiosks do not show customers' QR codes here (KIOSK_QR is off): the customer shows the code from their own app");
  }
  const { hash } = await deps.loyalty.hash(customerId, { requestId: ctx.requestId });
  // What the kiosk renders as a QR code: customer id then hash (DESIGN.md section 3).
  return { customerId, hash, qr: `${customerId}:${hash}` };
}

/**
 * A customer signs up at the till (the published get-or-create flow): the
 * balance read says whether the service knows this id, then `POST /customers`
 * creates the profile or updates it with the fields given, so calling again is
 * safe and never makes a second profile. The email and mobile also go at the
 * top level, where an account that merges channels reads them. Every valid
 * call is counted by outcome (`failed`: refused or out of reach).
 */
/** Signs a customer up; audited as `customer_registration`. */
export function registerCustomer(deps: CustomerDeps, ctx: CallContext, customerId: string, body: RegisterCustomerBody): Promise<CustomerRegistered> {
  return audited(deps, ctx, 'customer_registration', { customerId }, (c) => register(deps, c, customerId, body));
}

async function register(deps: CustomerDeps, ctx: CallContext, customerId: string, body: RegisterCustomerBody): Promise<CustomerRegistered> {
  const c = { requestId: ctx.requestId };
  try {
    const known = await deps.loyalty.balance(customerId, c).then(
      () => true,
      (err: unknown) => {
        if (isProblem(err, 'customer_not_found')) return false;
        throw err;
      },
    );
    const { guest, email, mobile, ...attributes } = body;
    const answer = await deps.loyalty.upsertCustomer(
      { customerId, email, mobile, guest, customerAttributes: { ...attributes, email, mobile, channel: 'pos' } },
      c,
    );
    const outcome = known ? 'updated' : 'created';
    countRegistration(deps.metrics, outcome);
    return { customerId, outcome, loyaltyId: answer.gameballId ?? null, profile: body };
  } catch (err) {
    countRegistration(deps.metrics, 'failed');
    throw err;
  }
}
