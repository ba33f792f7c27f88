import type { BatchOrdersRequest } from '../../contract';
import { isProblem, problem } from '../../platform/problem';
import { RETRY_SAME_REQUEST, type BatchItemFailure, type LoyaltyCallContext } from '../../upstream';
import { answeredUnreadably } from '../../upstream/call';
import { rememberJob, type BatchJobStore } from './batch-jobs';
import type { CallContext } from '../context';
import { claimActSettle } from '../money/claim-step';
import { saleIdClaim, type SaleClaimDeps } from '../sales/claims';
import { QueuedView, sendOrQueue, type OutboxDeps } from '../outbox/forward';
import type { BatchOrdersBody } from './schemas';
import { merchantOf } from '../terminals/store-merchant';
import { auditNote, type AuditDeps } from '../audit/record';
import { batchSubject } from '../audit/subjects';
import { withCashier } from '../audit/cashier';

/** What the end-of-day upload use cases are given. */
export type OrderDeps = SaleClaimDeps & OutboxDeps & AuditDeps & { batchJobs: BatchJobStore };

/** End-of-day upload of sales rung up offline; merchant and channel come from the terminal. */
export async function uploadOrders(deps: OrderDeps, ctx: CallContext, body: BatchOrdersBody, call: LoyaltyCallContext = { requestId: ctx.requestId }) {
  const { jobId } = await deps.loyalty.batchOrders(toUpstreamBatch(ctx, body), { ...call, priority: 'background' });
  await rememberJob(deps.batchJobs, { jobId, storeId: ctx.identity.store.id, now: deps.clock(), logger: deps.logger, requestId: ctx.requestId });
  return { jobId, orders: body.orders.length };
}

function toUpstreamBatch(ctx: CallContext, body: BatchOrdersBody): BatchOrdersRequest {
  const merchant = merchantOf(ctx.identity.store);
  return { body: body.orders.map((o) => ({ ...o, channel: 'pos' as const, merchant, extra: withCashier(ctx, undefined) })) };
}

export type QueuedOrders = QueuedView & { orders: number };

/**
 * The upload, through the one claim -> act -> settle step: every order id is
 * claimed for this store first (one taken by another store or customer refuses
 * the upload, and nothing is sent), so the store that rang an order up is the
 * one that may read, refund or void it. Queued when the upstream is out of
 * reach; delivered in order per store. The job id is known once delivered
 * (GET /pos/v1/outbox/:id). A second delivery after a lost answer makes a
 * second job whose orders fail one by one as duplicates of the first: nothing
 * is counted twice. Orders a job refuses keep their claim (`recording`) until their TTL: nothing frees them yet.
 * A 2xx whose body cannot be read was applied: answered `jobId: null`, never
 * "send the same request again" (the orders stay claimed, settled from their records).
 */
export async function uploadOrdersOrQueue(
  deps: OrderDeps,
  ctx: CallContext,
  body: BatchOrdersBody,
): Promise<Awaited<ReturnType<typeof uploadOrders>> | QueuedOrders | { jobId: null; orders: number }> {
  const claims = body.orders.map((o) =>
    saleIdClaim(
      deps,
      ctx,
      { kind: 'payment', id: o.orderId, customerId: o.customerId, paymentId: o.orderId },
      { kind: 'payment', totalPaid: o.totalPaid },
      { acceptedLater: true },
    ),
  );
  try {
    const answer = await claimActSettle<Awaited<ReturnType<typeof uploadOrders>> | QueuedOrders>({
      what: `The upload of ${body.orders.length} orders`,
      claims,
      logger: deps.logger,
      send: () =>
        sendOrQueue(deps, ctx, { kind: 'batchOrders', request: toUpstreamBatch(ctx, body) }, { orders: body.orders.length }, (call) =>
          uploadOrders(deps, ctx, body, call),
        ),
      // A batch is not refused as a whole for a duplicate; its orders are, one by one, in its status.
      onRecord: async () => false,
      audit: auditNote(deps, ctx, 'batch_upload', batchSubject(body)),
    });
    return answer as Awaited<ReturnType<typeof uploadOrders>> | QueuedOrders;
  } catch (err) {
    // A 2xx whose body could not be read: the upload was taken, only its job id is lost. Its orders'
    // ids stay claimed (`recording`) and are settled from their records; the till must not upload again.
    if (isProblem(err, RETRY_SAME_REQUEST) && answeredUnreadably(err.cause)) {
      deps.logger.warn({ orders: body.orders.length, requestId: ctx.requestId }, 'batch upload accepted, but its answer could not be read: job id lost');
      return { jobId: null, orders: body.orders.length };
    }
    throw err;
  }
}

/** Why an order of a batch failed, in our words, by the upstream's code; its own text never reaches a till. */
const FAILURE_REASONS: Record<number, string> = {
  9004: 'already recorded (duplicate order id)',
  7000: 'customer not found',
  3000: 'a required field is missing',
  3003: 'a value is not valid',
  3016: 'the order is not valid',
};
const reasonOf = (f: BatchItemFailure) => (f.code !== undefined && FAILURE_REASONS[f.code]) || 'refused by the loyalty service';

/** A job of the caller's store; another store's, or one not uploaded through us, is "not found". */
export async function orderBatchStatus(deps: Pick<OrderDeps, 'batchJobs' | 'clock' | 'loyalty'>, ctx: CallContext, jobId: number) {
  if ((await deps.batchJobs.storeOf(jobId, deps.clock())) !== ctx.identity.store.id) {
    throw problem('batch_job_not_found', `Batch job ${jobId} was not found`);
  }
  const s = await deps.loyalty.batchStatus(jobId, { requestId: ctx.requestId, priority: 'background' });
  return {
    jobId,
    status: s.status,
    total: s.total,
    processed: s.processed,
    succeeded: s.succeeded,
    failed: s.failed,
    failures: s.failures.map((f) => ({ orderId: f.orderId ?? null, customerId: f.customerId ?? null, reason: reasonOf(f) })),
  };
}
