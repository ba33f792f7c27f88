import type { Acknowledgement, BalanceResponse, HashResponse } from '../../contract';
import type { SandboxContext } from '../context';
import { money } from '../domain/money';
import { loyaltyErrors } from '../errors';
import type { CustomerRecord } from '../state/records';
import type { AccountEntry } from '../state/store';

export function requireCustomer(account: AccountEntry, customerId: string): CustomerRecord {
  const c = account.ledger.customer(customerId);
  if (!c) throw loyaltyErrors.customerNotFound(customerId);
  return c;
}

/** `GET /customers/:id/balance`: points and their money value at the redemption factor. */
export function readBalance(ctx: SandboxContext, account: AccountEntry, customerId: string): BalanceResponse {
  const c = requireCustomer(account, customerId);
  const b = account.ledger.balance(c, ctx.clock.now());
  const { redemptionFactor, currency, pointsName } = account.settings;
  return {
    customerId: c.id,
    totalPointsBalance: b.total,
    totalPointsValue: money(b.total * redemptionFactor),
    availablePointsBalance: b.available,
    availablePointsValue: money(b.available * redemptionFactor),
    pendingPoints: b.pending,
    pendingPointsValue: money(b.pending * redemptionFactor),
    heldPoints: b.held,
    currency,
    pointsName,
    totalEarnedPoints: c.totalEarned,
  };
}

/** `GET /customers/:id/hash`: the current hash (rotated by holds, payments and refunds). */
export function readHash(account: AccountEntry, customerId: string): HashResponse {
  return { hash: requireCustomer(account, customerId).hash };
}

/** `DELETE /customers/:id`: the profile and all its data go; later reads answer 7000. */
export function deleteCustomer(account: AccountEntry, customerId: string): Acknowledgement {
  if (!account.ledger.deleteCustomer(customerId)) throw loyaltyErrors.customerNotFound(customerId);
  return { success: true, message: `Customer "${customerId}" and all their data were deleted` };
}
