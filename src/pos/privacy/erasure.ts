import type { Logger } from 'pino';
import type { AuditTrail } from '../audit/trail';
import type { CouponLockStore } from '../coupons/locks/types';
import { OPEN_LOCK_STATES } from '../coupons/locks/types';
import type { IdempotencyStore } from '../idempotency/types';
import type { OtpTicketStore } from '../otp';
import { FINISHED_STATES, type OutboxStore } from '../outbox/types';
import type { RedemptionStore } from '../redemptions/types';
import type { RedemptionCap } from '../redemptions/cap';
import type { SaleRecords } from '../sales/records';
import { isIdClaimed } from '../money/ids/records';
import type { TillAnswerStore } from '../till-answers/types';
import { answerNames, namesCustomer, scrubbed } from './pseudonym';

/** Every store that may keep something about a customer, and the fleet's pseudonym of a customer id. */
export interface ErasureDeps {
  redemptions: RedemptionStore;
  couponLocks: CouponLockStore;
  sales: SaleRecords;
  otpTickets: OtpTicketStore;
  /** The redemption cap's counts, kept under the customer's id for a day or two (dropped). */
  redemptionCap?: RedemptionCap;
  outbox: OutboxStore;
  idempotency: IdempotencyStore;
  tillAnswers: TillAnswerStore;
  audit?: AuditTrail;
  clock: () => number;
  logger: Logger;
  customerPseudonym(customerId: string): string;
}

/** What one erasure pass changed, per store. */
export interface Erased {
  redemptions: number;
  couponLocks: number;
  sales: number;
  otpTickets: number;
  outboxEntries: number;
  keptAnswers: number;
  tillAnswers: number;
  auditEntries: number;
}

/**
 * Redemption states whose hold is placed, or being placed, upstream, and stand-ins not yet paid or waiting
 * for approval (a till may still pay one; each lapses within minutes): points of the customer's in flight.
 */
const HOLD_IN_FLIGHT = new Set(['confirming', 'held', 'paying', 'voiding', 'stand_in', 'stand_in_approval']);

/**
 * What at this BFF still moves the customer's points or money and would be
 * lost, or could no longer be settled, if their records were anonymised now:
 * an open hold, an open coupon lock, a sale or refund being recorded or
 * voided, a write waiting in the outbox, a dead letter no manager has retried
 * or discarded. Each named as a till or manager can act on it.
 */
export async function openWorkOf(deps: ErasureDeps, customerId: string): Promise<string[]> {
  const open: string[] = [];
  await deps.redemptions.list(async (rs) => {
    for (const r of rs) if (r.customerId === customerId && HOLD_IN_FLIGHT.has(r.state)) open.push(`redemption ${r.id} (${r.state})`);
  });
  await deps.couponLocks.list(async (ls) => {
    for (const l of ls) if (l.customerId === customerId && OPEN_LOCK_STATES.includes(l.state)) open.push(`coupon lock ${l.id} (${l.state})`);
  });
  await deps.sales.list(async (es) => {
    for (const e of es) {
      if (e.customerId !== customerId || !(isIdClaimed(e) || e.queued)) continue;
      open.push(`${e.kind === 'payment' ? 'sale' : 'refund'} ${e.id} (${e.queued ? 'queued' : (e.state ?? 'recorded')})`);
    }
  });
  await deps.outbox.list(async (es) => {
    for (const e of es) {
      if (FINISHED_STATES.includes(e.state) || !(e.orderKey === `customer:${customerId}` || namesCustomer(e.work.request, customerId))) continue;
      open.push(`outbox entry ${e.id} (${e.state === 'dead' ? 'dead letter' : e.state})`);
    }
  });
  return open.sort();
}

/**
 * One erasure pass: what names the customer is removed, or kept under their
 * pseudonym where the money's record needs it. Run once the loyalty service
 * deleted them (or said they were gone), and again by ErasureFollowUp.
 *
 * - redemptions, coupon locks, sale and refund records: kept (reconciliation,
 *   refunds and read-backs of other parties' money need them), the id replaced
 *   by the pseudonym, contact details and the customer's hash dropped;
 * - the customer's OTP ticket: dropped;
 * - finished outbox entries naming them (their own writes, a batch upload
 *   with one of their orders): kept with the pseudonym, for reconciliation;
 * - kept answers (Idempotency-Key replays, read-backs of 202s) naming them:
 *   dropped (a retry with such a key runs as a new request);
 * - the audit trail: the id replaced by the pseudonym in every entry, in place.
 *
 * Records still open (openWorkOf) are left as they are: the caller refused
 * the deletion while there were any, so only a race leaves one, and its taker
 * still settles it.
 */
export async function eraseCustomerData(deps: ErasureDeps, customerId: string): Promise<Erased> {
  const pseudonym = deps.customerPseudonym(customerId);
  const scrub = <T>(v: T) => scrubbed(v, customerId, pseudonym);
  const now = deps.clock();
  const erased: Erased = { redemptions: 0, couponLocks: 0, sales: 0, otpTickets: 0, outboxEntries: 0, keptAnswers: 0, tillAnswers: 0, auditEntries: 0 };

  const theirs: string[] = [];
  await deps.redemptions.list(
    async (rs) => void theirs.push(...rs.filter((r) => r.customerId === customerId && !HOLD_IN_FLIGHT.has(r.state)).map((r) => r.id)),
  );
  for (const id of theirs) {
    const done = await deps.redemptions.change(id, now, (r) => (r.customerId === customerId && !HOLD_IN_FLIGHT.has(r.state) ? scrub(r) : 'open'));
    if (done.ok) erased.redemptions += 1;
  }

  const locks: string[] = [];
  await deps.couponLocks.list(
    async (ls) => void locks.push(...ls.filter((l) => l.customerId === customerId && !OPEN_LOCK_STATES.includes(l.state)).map((l) => l.id)),
  );
  for (const id of locks) {
    const done = await deps.couponLocks.change(id, now, (l) => (l.customerId === customerId && !OPEN_LOCK_STATES.includes(l.state) ? scrub(l) : 'open'));
    if (done.ok) erased.couponLocks += 1;
  }

  const sales: { kind: 'payment' | 'refund'; id: string }[] = [];
  await deps.sales.list(async (es) => void sales.push(...es.filter((e) => e.customerId === customerId && !isIdClaimed(e) && !e.queued)));
  for (const { kind, id } of sales) {
    const done = await deps.sales.change(kind, id, (e) => (e.customerId === customerId && !isIdClaimed(e) && !e.queued ? scrub(e) : 'open'));
    if (done.ok) erased.sales += 1;
  }

  if (await deps.otpTickets.forget(customerId)) erased.otpTickets += 1;
  await deps.redemptionCap?.forget(customerId, now);

  const finished: Parameters<OutboxStore['rewriteFinished']>[0][] = [];
  await deps.outbox.list(async (es) => void finished.push(...es.filter((e) => FINISHED_STATES.includes(e.state) && namesCustomer(e, customerId))));
  for (const e of finished) if (await deps.outbox.rewriteFinished(e, scrub)) erased.outboxEntries += 1;

  const names = (answer: { body: string; location?: string }) => answerNames(answer, customerId);
  erased.keptAnswers = await deps.idempotency.forgetAnswers(names);
  erased.tillAnswers = await deps.tillAnswers.forgetAnswers(names);
  erased.auditEntries = (await deps.audit?.pseudonymise(customerId, pseudonym)) ?? 0;
  return erased;
}
