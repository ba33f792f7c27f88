import { z } from 'zod';
import { AccountSettings, PublicAccountSettings, publicSettings, SeedCustomer } from '../accounts';
import type { SandboxContext } from '../context';
import { loyaltyErrors } from '../errors';
import { parseWith } from '../http/validate';
import type { AccountEntry } from '../state/store';
import { readBalance } from './customers';

export const ClockAdvance = z.strictObject({
  /** Forward only: holds, OTPs and windows that ended must stay ended. */
  ms: z
    .number()
    .int()
    .min(0)
    .max(100 * 365 * 24 * 3600 * 1000),
});

export function resetSandbox(ctx: SandboxContext) {
  ctx.store.reset();
  return { success: true, message: 'All accounts and state are back to the configured seed', now: ctx.clock.iso() };
}

export function seedCustomer(ctx: SandboxContext, account: AccountEntry, body: unknown) {
  const seed = parseWith(SeedCustomer, body);
  const { created } = ctx.store.seedCustomer(account, seed);
  // The published balance has no customerId; the admin answer names the customer it seeded.
  return { created, balance: { customerId: seed.customerId, ...readBalance(ctx, account, seed.customerId) } };
}

export const BulkSeed = z.strictObject({
  prefix: z
    .string()
    .min(1)
    .max(100)
    .regex(/^[A-Za-z0-9_.:-]+$/, 'letters, digits and _ . : - only'),
  count: z.number().int().min(1).max(2_000_000),
  points: z.number().int().nonnegative(),
});

/** Seeds `prefix0 .. prefix{count-1}`, each with `points` (load tests need many customers). */
export function seedCustomersInBulk(ctx: SandboxContext, account: AccountEntry, body: unknown) {
  const { prefix, count, points } = parseWith(BulkSeed, body);
  let created = 0;
  for (let i = 0; i < count; i++) if (ctx.store.seedCustomer(account, { customerId: `${prefix}${i}`, points }).created) created += 1;
  return { created, updated: count - created, totalCustomers: account.ledger.customers.size };
}

export function readAccount(account: AccountEntry): PublicAccountSettings {
  return publicSettings(account.settings);
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Changes an account's settings: the body names only what changes. Each field
 * replaces the current one, except objects (`earn`, `eventRewards`, `rateLimits`), whose
 * fields are merged one level deep; arrays (tiers, coupons, ...) are replaced
 * whole. `secretKey` left out keeps the current one (GET never shows it).
 */
export function updateAccount(ctx: SandboxContext, account: AccountEntry, body: unknown): PublicAccountSettings {
  if (!isPlainObject(body)) throw loyaltyErrors.invalidPayload('The request body must be a JSON object of account settings');
  const current = account.settings;
  if (body.apiKey !== undefined && body.apiKey !== current.apiKey) {
    throw loyaltyErrors.invalidValue('apiKey cannot be changed: it must equal the apikey in the path', 'InvalidValue');
  }
  const was = current as Record<string, unknown>;
  // fromEntries defines own properties: a "__proto__" key stays a key (and is refused as unknown), never a prototype.
  const merged = Object.fromEntries<unknown>([
    ...Object.entries(current),
    ...Object.entries(body).map(([key, value]): [string, unknown] => [
      key,
      isPlainObject(was[key]) && isPlainObject(value) ? { ...was[key], ...value } : value,
    ]),
  ]);
  const settings = parseWith(AccountSettings, { ...merged, apiKey: current.apiKey }, 'account settings');
  ctx.store.replaceSettings(current.apiKey, settings);
  return publicSettings(settings);
}

export function readClock(ctx: SandboxContext) {
  const now = ctx.clock.now();
  return { now: ctx.clock.iso(now), epochMs: now, offsetMs: ctx.clock.offset() };
}

export function advanceClock(ctx: SandboxContext, body: unknown) {
  const { ms } = parseWith(ClockAdvance, body);
  ctx.clock.advance(ms);
  return readClock(ctx);
}

/** The last OTP "sent" to a customer, as a developer would read it from their phone. */
export function readOtp(ctx: SandboxContext, account: AccountEntry, customerId: string) {
  const c = account.ledger.customer(customerId);
  if (!c) throw loyaltyErrors.customerNotFound(customerId);
  if (!c.otp) throw loyaltyErrors.notFound(`No OTP has been sent to customer "${customerId}"`);
  return { otp: c.otp.code, expiresAt: ctx.clock.iso(c.otp.expiresAt), expired: ctx.clock.now() >= c.otp.expiresAt, used: c.otp.spent !== undefined };
}

/** A customer's recorded activity ("Payment Processed", events, holds, refunds), oldest first. */
export function readActivity(ctx: SandboxContext, account: AccountEntry, customerId: string) {
  const c = account.ledger.customer(customerId);
  if (!c) throw loyaltyErrors.customerNotFound(customerId);
  return { customerId, activity: (c.activity ?? []).map((a) => ({ type: a.type, at: ctx.clock.iso(a.at), properties: a.properties })) };
}

/**
 * Forgets the record of one transaction (a payment, an order or a redeem), as if the service had lost it: for
 * tests of what reads records back (the BFF's reconciliation). Its order transactions then answer 404/TransactionNotFound,
 * the account's list leaves it out, and its id may be used again; what it did to balances, holds and refunds stays.
 */
export function forgetTransaction(account: AccountEntry, transactionId: string) {
  const tx = account.ledger.transactions.get(transactionId);
  if (!tx) throw loyaltyErrors.transactionNotFound(`No transaction "${transactionId}" to forget`);
  account.ledger.forgetTransaction(tx);
  return { forgotten: true, transactionId, kind: tx.kind, customerId: tx.customerId };
}
