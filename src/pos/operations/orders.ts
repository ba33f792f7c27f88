import type { BatchOrdersRequest } from '../../contract';
import type { LoyaltyCallContext } from '../../upstream';
import type { CallContext, PosDeps } from '../deps';
import { QueuedView, sendOrQueue } from '../outbox/forward';
import type { BatchOrdersBody } from '../schemas';
import { merchantOf } from './store-merchant';

/** End-of-day upload of sales rung up offline; merchant and channel come from the terminal. */
export async function uploadOrders(deps: PosDeps, ctx: CallContext, body: BatchOrdersBody, call: LoyaltyCallContext = { requestId: ctx.requestId }) {
  const { jobId } = await deps.loyalty.batchOrders(toUpstreamBatch(ctx, body), call);
  return { jobId, orders: body.orders.length };
}

function toUpstreamBatch(ctx: CallContext, body: BatchOrdersBody): BatchOrdersRequest {
  const merchant = merchantOf(ctx.identity.store);
  return { body: body.orders.map((o) => ({ ...o, channel: 'pos' as const, merchant })) };
}

export type QueuedOrders = QueuedView & { orders: number };

/**
 * The upload, queued when the upstream is out of reach; delivered in order
 * per store. The job id is known once delivered (GET /pos/v1/outbox/:id).
 * A second delivery after a lost answer makes a second job whose orders fail
 * one by one as duplicates of the first: nothing is counted twice.
 */
export async function uploadOrdersOrQueue(deps: PosDeps, ctx: CallContext, body: BatchOrdersBody): Promise<Awaited<ReturnType<typeof uploadOrders>> | QueuedOrders> {
  return sendOrQueue(deps, ctx, { kind: 'batchOrders', request: toUpstreamBatch(ctx, body) }, { orders: body.orders.length }, (call) => uploadOrders(deps, ctx, body, call));
}

export async function orderBatchStatus(deps: PosDeps, ctx: CallContext, jobId: number) {
  const s = await deps.loyalty.batchStatus(jobId, { requestId: ctx.requestId });
  return {
    jobId: s.jobId,
    status: s.status,
    total: s.total,
    processed: s.processed,
    succeeded: s.succeeded,
    failed: s.failed,
    failures: s.results.filter((r) => !r.success).map((r) => ({ orderId: r.orderId, customerId: r.customerId, reason: r.error?.message ?? 'refused' })),
  };
}
