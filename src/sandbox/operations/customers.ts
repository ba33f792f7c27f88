import type { BalanceResponse, DeleteCustomerResponse, HashResponse, UpsertCustomerRequest, UpsertCustomerResponse } from '../../contract';
import type { SandboxContext } from '../context';
import { requireChannelField } from '../domain/channel';
import { money } from '../domain/money';
import { loyaltyErrors } from '../errors';
import type { CustomerRecord } from '../state/records';
import type { AccountEntry } from '../state/store';

/**
 * The customer's profile, or 7000. With `contact` (a request's email and
 * mobile), a channel id the account has not seen yet finds the profile that
 * the account's channel merging joins it to (see AccountLedger.profileFor).
 */
export function requireCustomer(account: AccountEntry, customerId: string, contact?: { email?: string; mobile?: string }): CustomerRecord {
  const c = contact ? account.ledger.profileFor(customerId, contact, account.settings.channelMerging) : account.ledger.customer(customerId);
  if (!c) throw loyaltyErrors.customerNotFound(customerId);
  return c;
}

/**
 * `GET /customers/:id/balance`: points and their money value at the
 * redemption factor. Sandbox points never expire, so nothing expires next
 * (0, 0 and an empty date); `heldPoints` is the sandbox's own field.
 */
export function readBalance(ctx: SandboxContext, account: AccountEntry, customerId: string): BalanceResponse {
  const c = requireCustomer(account, customerId);
  const b = account.ledger.balance(c, ctx.clock.now());
  const { redemptionFactor, currency, pointsName } = account.settings;
  return {
    totalPointsBalance: b.total,
    totalPointsValue: money(b.total * redemptionFactor),
    availablePointsBalance: b.available,
    availablePointsValue: money(b.available * redemptionFactor),
    pendingPoints: b.pending,
    pendingPointsValue: money(b.pending * redemptionFactor),
    currency,
    pointsName,
    nextExpiringPointsAmount: 0,
    nextExpiringPointsValue: 0,
    nextExpiringPointsDate: '',
    totalEarnedPoints: c.totalEarned,
    heldPoints: b.held,
  };
}

/** `GET /customers/:id/hash`: the current hash (rotated by holds, payments and refunds). */
export function readHash(account: AccountEntry, customerId: string): HashResponse {
  return { hash: requireCustomer(account, customerId).hash };
}

/** `DELETE /customers/:id`: the profile and all its data go; later reads answer 7000. Published as a bare 200: the body is `{}`. */
export function deleteCustomer(account: AccountEntry, customerId: string): DeleteCustomerResponse {
  if (!account.ledger.deleteCustomer(customerId)) throw loyaltyErrors.customerNotFound(customerId);
  return {};
}

/**
 * `POST /customers`: get-or-create. A new customerId gets a profile; a known
 * one (or, with channel merging, a new channel id carrying a known email or
 * mobile) has its profile updated with the fields sent, never duplicated.
 * The answer is the profile's `gameballId`, the same on every call.
 * `referrerCode` and the device fields are accepted and kept out of the ledger:
 * the sandbox runs no referral programme or push notifications.
 */
export function upsertCustomer(ctx: SandboxContext, account: AccountEntry, req: UpsertCustomerRequest): UpsertCustomerResponse {
  const { settings, ledger } = account;
  const now = ctx.clock.now();
  requireChannelField(settings, req);
  const attributes = req.customerAttributes ?? {};
  // The top-level fields are the merge keys; the profile's own copies fill in when they are absent.
  const contact = { email: req.email ?? attributes.email, mobile: req.mobile ?? attributes.mobile };
  const { c, created } = ensureProfile(ctx, account, req.customerId, contact);
  c.attributes = { ...c.attributes, ...attributes };
  if (req.guest !== undefined) c.guest = req.guest;
  ledger.recordActivity(c, { type: created ? 'Profile Created' : 'Profile Updated', at: now, properties: { customerId: req.customerId, ...attributes } });
  return { gameballId: c.gameballId };
}

/**
 * The customer's profile, created when the account has none (registration,
 * first payment, order or event; see AccountLedger.ensureCustomer). A profile
 * created here gets the account's welcome bonus (`welcomeBonusPoints`, the
 * sandbox's stand-in for an onboarding campaign) once, as its own activity.
 */
export function ensureProfile(
  ctx: SandboxContext,
  account: AccountEntry,
  customerId: string,
  contact: { email?: string; mobile?: string },
): { c: CustomerRecord; created: boolean } {
  const { settings, ledger } = account;
  const now = ctx.clock.now();
  const created = ledger.profileFor(customerId, contact, settings.channelMerging) === undefined;
  const c = ledger.ensureCustomer(customerId, now, contact, settings.channelMerging);
  if (created && settings.welcomeBonusPoints > 0) {
    ledger.creditEarned(c, settings.welcomeBonusPoints, now, 'welcome-bonus');
    ledger.recordActivity(c, { type: 'Welcome Bonus', at: now, properties: { points: settings.welcomeBonusPoints } });
  }
  return { c, created };
}
