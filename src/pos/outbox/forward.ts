import { randomBytes } from 'node:crypto';
import { AppError } from '../../platform/errors';
import { problem } from '../../platform/problem';
import { failureOf, upstreamFailureKind, type LoyaltyCallContext } from '../../upstream';
import type { CallContext, SharedDeps } from '../context';
import type { OutboxKind, OutboxStore, OutboxWork } from './types';

/** What queueing a write uses. */
export type OutboxDeps = Pick<SharedDeps, 'clock' | 'logger'> & { outbox: OutboxStore };

/** What the till gets instead of the upstream's answer: 202 and where to look later. */
export interface QueuedView {
  queued: true;
  outboxId: string;
  state: 'queued';
  kind: OutboxKind;
  /** Our code of why it was queued: upstream_unavailable, upstream_timeout, upstream_circuit_open, upstream_busy, behind_queued. */
  reason: string;
}

export function newOutboxId(): string {
  return `obx_${randomBytes(12).toString('base64url')}`;
}

/**
 * Kinds the upstream refuses a second time under their own ids (a payment id,
 * a refund id; a batch's orders one by one by order id), so a copy sent after
 * a send that may have landed is answered "duplicate" instead of applied again.
 * Events carry no id in the published interface: a second copy is recorded twice.
 */
export const RESENDABLE: Record<OutboxKind, boolean> = { payment: true, refund: true, batchOrders: true, events: false };

/** Failures after which a write is queued rather than failed: the upstream is out of reach or over its limit. */
export function shouldQueue(err: unknown): boolean {
  const kind = upstreamFailureKind(err);
  return kind === 'unavailable' || kind === 'timeout' || kind === 'rate_limited';
}

/**
 * Whether a write of this kind that failed with `err` may be sent again (queued, or retried by the worker): the
 * upstream refuses copies of it, or the one outcome reader says it was certainly not applied (never sent, or refused).
 */
export function mayResend(kind: OutboxKind, err: unknown): boolean {
  return RESENDABLE[kind] || failureOf(err) === 'refused';
}

/** A write of a kind sent only once whose send may have landed: out of reach, too slow, or answered unreadably, and not certainly unsent. */
function mayHaveBeenRecorded(kind: OutboxKind, err: unknown): boolean {
  return (shouldQueue(err) || upstreamFailureKind(err) === 'invalid_response') && !mayResend(kind, err);
}

/** The till's final answer for events that may have been recorded: never sent again, never "nothing was done". */
export function eventsMaybeRecorded(cause: unknown): AppError {
  return problem(
    'event_maybe_recorded',
    'The loyalty service may have recorded these events but did not confirm it (no answer in time, a failure after they were sent, or an answer that could not be read); they are not sent again (a copy would be recorded twice) and are listed for the reconciliation',
    { cause },
  );
}

/** The order key: one customer's writes are delivered in the order they were made; a store's batch uploads likewise. */
export function orderKeyOf(ctx: CallContext, work: OutboxWork): string {
  return work.kind === 'batchOrders' ? `store:${ctx.identity.store.id}` : `customer:${work.request.customerId}`;
}

/** Writes the work to the outbox now. */
export async function queueWork(deps: OutboxDeps, ctx: CallContext, work: OutboxWork, reason: string, id: string = newOutboxId()): Promise<QueuedView> {
  const entry = await deps.outbox.enqueue(
    { id, work, orderKey: orderKeyOf(ctx, work), storeId: ctx.identity.store.id, terminalId: ctx.identity.terminal.id, requestId: ctx.requestId, reason },
    deps.clock(),
  );
  deps.logger.info({ outboxId: entry.id, kind: work.kind, orderKey: entry.orderKey, reason, requestId: ctx.requestId }, 'write queued in the outbox');
  return { queued: true, outboxId: entry.id, state: 'queued', kind: work.kind, reason };
}

/** The precondition's refusal: this order key has queued writes, so the write queues behind them. */
class BehindQueued extends Error {
  constructor() {
    super('behind queued writes');
  }
}

/**
 * Store-and-forward for writes that can wait (a payment without a
 * redemption, a refund, a sale void, events, a batch upload): sent now, or
 * queued when the upstream is out of reach, too slow, its circuit is open or
 * the fleet is over its rate limit; events only when they certainly never
 * left (see RESENDABLE), else `event_maybe_recorded`. A write whose customer
 * already has queued entries queues behind them, so they reach the upstream
 * in order (a refund never overtakes its payment). `sendNow` MUST pass
 * `call` to its loyalty call: it carries that check as the call's
 * precondition, made in the same Redis round trip as the rate-limit
 * reservation. `opts.first` is work that
 * must be done before the write is sent or queued (a sale's store record): it
 * runs in that round trip too, and its failure ends the write with nothing
 * sent or queued. `opts.prepare` may adjust the work for the queue given the
 * outbox id (events get a stable id in their metadata); `summary` (the till's
 * own ids) is added to the queued answer.
 */
export async function sendOrQueue<V, S extends object>(
  deps: OutboxDeps,
  ctx: CallContext,
  work: OutboxWork,
  summary: S,
  sendNow: (call: LoyaltyCallContext) => Promise<V>,
  opts: { prepare?: (work: OutboxWork, outboxId: string) => OutboxWork; first?: () => Promise<void> } = {},
): Promise<V | (QueuedView & S)> {
  const { prepare = (w: OutboxWork) => w, first } = opts;
  let firstDone: Promise<void> | undefined;
  const runFirst = () => (firstDone ??= first ? first() : Promise.resolve());
  const queue = async (reason: string) => {
    // A policy may refuse the call before its precondition was awaited: nothing is queued before `first` is done.
    await runFirst();
    // A till told "nothing was done" at its deadline must not have it done later from the queue.
    ctx.till?.beforeSend('queue');
    const id = newOutboxId();
    return { ...summary, ...(await queueWork(deps, ctx, prepare(work, id), reason, id)) };
  };
  const orderKey = orderKeyOf(ctx, work);
  const precondition = async () => {
    const [behind] = await Promise.all([pendingFor(deps, orderKey), runFirst()]);
    if (behind) throw new BehindQueued();
  };
  try {
    return await sendNow({ requestId: ctx.requestId, precondition });
  } catch (err) {
    if (err instanceof BehindQueued) return queue('behind_queued');
    if (mayHaveBeenRecorded(work.kind, err)) throw eventsMaybeRecorded(err);
    if (!shouldQueue(err)) throw err;
    return queue((err as AppError).code);
  }
}

/**
 * Whether the key has queued writes; when the outbox cannot be read (Redis
 * down) the write goes straight to the upstream rather than failing: order
 * cannot be checked then, but a write that needs no other Redis step (events,
 * a batch upload; not a sale, whose `first` keeps its store) still goes
 * through. If it then has to be queued and cannot be, it fails with 503
 * (nothing is accepted that is not recorded).
 */
async function pendingFor(deps: OutboxDeps, orderKey: string): Promise<boolean> {
  try {
    return await deps.outbox.hasPending(orderKey);
  } catch (err) {
    deps.logger.warn({ orderKey, err: { message: (err as Error).message } }, 'outbox unreadable: sending without checking for queued writes of this customer');
    return false;
  }
}

export function isQueued(view: unknown): view is QueuedView {
  return typeof view === 'object' && view !== null && (view as { queued?: unknown }).queued === true;
}

/** The status a route answers with: 202 for a queued write, `sent` otherwise. */
export function statusFor(view: unknown, sent: number): number {
  return isQueued(view) ? 202 : sent;
}
