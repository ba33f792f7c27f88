import type { BatchItemResult, BatchOrdersRequest, BatchOrdersResponse, BatchStatusResponse, OrderItem } from '../../contract';
import { isAppError } from '../../platform/errors';
import type { SandboxContext } from '../context';
import { loyaltyErrors, toLoyaltyBody } from '../errors';
import type { BatchJob } from '../state/batch-jobs';
import type { AccountEntry } from '../state/store';
import { recordPurchase } from './purchases';

/** Orders processed per turn of the event loop, so a big batch never stalls other requests. */
const ORDERS_PER_STEP = 50;

/** One order, processed like a payment (hold, coupons, earn rules, hash). Returns the points rewarded. */
export function processOrder(ctx: SandboxContext, account: AccountEntry, order: OrderItem): number {
  return recordPurchase(ctx, account, {
    id: order.orderId,
    kind: 'order',
    customerId: order.customerId,
    email: order.email,
    mobile: order.mobile,
    totalPaid: order.totalPaid,
    guest: order.guest,
    redemption: order.redemption,
    activity: { type: 'Order Processed', properties: { ...order } },
  }).earnedPoints;
}

function processItem(ctx: SandboxContext, account: AccountEntry, order: OrderItem, index: number): BatchItemResult {
  const base = { index, orderId: order.orderId, customerId: order.customerId };
  try {
    return { ...base, success: true, rewardedPoints: processOrder(ctx, account, order) };
  } catch (err) {
    // A bug in one order fails that order (masked as 5000), not the batch.
    if (!isAppError(err)) ctx.logger.error({ err, jobOrderIndex: index }, 'batch order failed unexpectedly');
    const appError = isAppError(err) ? err : loyaltyErrors.internal('An internal error occurred');
    const body = toLoyaltyBody(appError, '');
    return { ...base, success: false, error: { code: body.code, message: body.message } };
  }
}

/** Processes the next few orders, then yields; ends the job when every order has a result. */
function step(ctx: SandboxContext, account: AccountEntry, job: BatchJob): void {
  if (job.cancelled) return;
  job.status = 'running';
  try {
    const end = Math.min(job.results.length + ORDERS_PER_STEP, job.total);
    for (let i = job.results.length; i < end; i++) {
      const result = processItem(ctx, account, job.orders[i], i);
      job.results.push(result);
      if (result.success) job.succeeded += 1;
      else job.failed += 1;
    }
  } catch (err) {
    ctx.logger.error({ err, jobId: job.id }, 'batch job failed');
    finish(ctx, job, 'failed');
    return;
  }
  if (job.results.length < job.total) setImmediate(() => step(ctx, account, job));
  else finish(ctx, job, 'completed');
}

function finish(ctx: SandboxContext, job: BatchJob, status: 'completed' | 'failed'): void {
  job.status = status;
  job.finishedAt = ctx.clock.now();
  job.orders = [];
}

/** `POST /batch/orders`: queues the job and answers with its id at once; the orders run in the background. */
export function submitBatch(ctx: SandboxContext, account: AccountEntry, req: BatchOrdersRequest): BatchOrdersResponse {
  const job = ctx.batchJobs.create(account.settings.apiKey, req.body, ctx.clock.now());
  setImmediate(() => step(ctx, account, job));
  return { jobId: job.id };
}

/** `GET /batches/:jobId/status`: a job of another account is as unknown as one never made. */
export function readBatchStatus(ctx: SandboxContext, account: AccountEntry, jobId: number): BatchStatusResponse {
  const job = ctx.batchJobs.get(jobId);
  if (!job || job.apiKey !== account.settings.apiKey) throw loyaltyErrors.notFound(`Batch job ${jobId} was not found`);
  return {
    jobId: job.id,
    status: job.status,
    total: job.total,
    processed: job.results.length,
    succeeded: job.succeeded,
    failed: job.failed,
    results: job.results.map((r) => ({ ...r })),
  };
}
