import { problem } from '../../platform/problem';
import type { CallContext } from '../context';
import type { OutboxDeps } from './forward';
import type { OutboxEntry, OutboxWork } from './types';
import type { IdRecords } from '../money/ids/records';
import { claimAgain, type QueuedId } from './retry-claims';

/** What a till sees of an outbox entry: its state and what it is about, never the full request (personal data). */
export interface OutboxEntryView {
  outboxId: string;
  kind: OutboxWork['kind'];
  state: OutboxEntry['state'];
  reason: string;
  attempts: number;
  createdAt: string;
  updatedAt: string;
  nextAttemptAt?: string;
  deliveredAt?: string;
  deadAt?: string;
  lastError?: { code: string; message: string; status?: number };
  result?: Record<string, unknown>;
  subject: Record<string, unknown>;
  terminalId: string;
}

const iso = (ms: number) => new Date(ms).toISOString();

function subjectOf(work: OutboxWork): Record<string, unknown> {
  switch (work.kind) {
    case 'payment':
      return { customerId: work.request.customerId, paymentId: work.request.paymentId, totalPaid: work.request.totalPaid };
    case 'refund':
      return {
        customerId: work.request.customerId,
        refundId: work.request.refundTransactionId,
        paymentId: work.request.reverseTransactionId,
        amount: work.request.refundAmount,
      };
    case 'events':
      return { customerId: work.request.customerId, events: Object.keys(work.request.events) };
    case 'batchOrders':
      return { orders: work.request.body.length, orderIds: work.request.body.slice(0, 20).map((o) => o.orderId) };
  }
}

export function outboxEntryView(e: OutboxEntry, now: number): OutboxEntryView {
  return {
    outboxId: e.id,
    kind: e.work.kind,
    state: e.state,
    reason: e.reason,
    attempts: e.attempts,
    createdAt: iso(e.createdAt),
    updatedAt: iso(e.updatedAt),
    ...(e.state === 'queued' && e.nextAttemptAt > now ? { nextAttemptAt: iso(e.nextAttemptAt) } : {}),
    ...(e.deliveredAt !== undefined ? { deliveredAt: iso(e.deliveredAt) } : {}),
    ...(e.deadAt !== undefined ? { deadAt: iso(e.deadAt) } : {}),
    ...(e.lastError ? { lastError: { code: e.lastError.code, message: e.lastError.message, status: e.lastError.status } } : {}),
    ...(e.result ? { result: e.result } : {}),
    subject: subjectOf(e.work),
    terminalId: e.terminalId,
  };
}

const notFound = (id: string, what = 'outbox entry') => problem('outbox_entry_not_found', `No ${what} ${id} for this store`);

/** A store's terminals see its own entries only; another store's look like none. */
export async function outboxStatus(deps: OutboxDeps, ctx: CallContext, id: string): Promise<OutboxEntryView> {
  const now = deps.clock();
  const e = await deps.outbox.get(id, now);
  if (!e || e.storeId !== ctx.identity.store.id) throw notFound(id);
  return outboxEntryView(e, now);
}

export async function listDeadLetters(deps: OutboxDeps, ctx: CallContext, limit: number) {
  const now = deps.clock();
  const dead = await deps.outbox.listDead(ctx.identity.store.id, limit, now);
  return { deadLetters: dead.map((e) => outboxEntryView(e, now)) };
}

/** What the dead letters' routes are given: the outbox, and the id records a retry claims again. */
export type DeadLetterDeps = OutboxDeps & { sales: IdRecords<QueuedId> };

/**
 * Back in the queue, after the cause was fixed (e.g. the refunded payment now
 * exists upstream). Not events that may have been recorded: a copy would be
 * recorded twice (nothing upstream refuses it), so they can only be discarded.
 */
export async function retryDeadLetter(deps: DeadLetterDeps, ctx: CallContext, id: string): Promise<OutboxEntryView> {
  const now = deps.clock();
  const seen = await deps.outbox.get(id, now);
  if (!seen || seen.storeId !== ctx.identity.store.id || seen.state !== 'dead') throw notFound(id, 'dead letter');
  if (seen.lastError?.code === 'event_maybe_recorded') {
    throw problem('dead_letter_maybe_recorded', `Dead letter ${id} may have been recorded by the loyalty service; sending it again could record it twice`);
  }
  // Its ids are this store's again before it can be delivered (a refusal had freed them).
  const unclaim = await claimAgain(deps.sales, seen);
  // Not put back by this call: the claims are freed only while the letter is still dead (or gone for good). A
  // concurrent retry of the same letter kept them (they were this write's) and put it back: its delivery needs them.
  const freeUnlessQueued = async () => {
    const cur = await deps.outbox.get(id, deps.clock());
    if (!cur || cur.state === 'dead' || cur.state === 'discarded') await unclaim();
  };
  let e: OutboxEntry | null;
  try {
    e = await deps.outbox.retryDead(id, ctx.identity.store.id, now);
  } catch (err) {
    await freeUnlessQueued().catch((why: unknown) =>
      deps.logger.warn({ outboxId: id, err: why }, 'dead letter retry failed; the ids it claimed are left to their lease'),
    );
    throw err;
  }
  if (!e) {
    await freeUnlessQueued();
    throw notFound(id, 'dead letter');
  }
  deps.logger.info({ outboxId: id, terminalId: ctx.identity.terminal.id }, 'dead letter put back in the outbox');
  return outboxEntryView(e, now);
}

export async function discardDeadLetter(deps: OutboxDeps, ctx: CallContext, id: string): Promise<OutboxEntryView> {
  const now = deps.clock();
  const e = await deps.outbox.discardDead(id, ctx.identity.store.id, now);
  if (!e) throw notFound(id, 'dead letter');
  deps.logger.warn({ outboxId: id, kind: e.work.kind, terminalId: ctx.identity.terminal.id }, 'dead letter discarded: it will never reach the loyalty service');
  return outboxEntryView(e, now);
}
