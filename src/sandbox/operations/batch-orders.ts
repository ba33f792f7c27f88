import type { BatchOrdersRequest, BatchOrdersResponse, BatchStatusResponse, OrderItem } from '../../contract';
import { isAppError } from '../../platform/errors';
import type { SandboxContext } from '../context';
import { loyaltyErrors, toLoyaltyBody } from '../errors';
import type { BatchJob } from '../state/batch-jobs';
import type { AccountEntry } from '../state/store';
import { recordPurchase } from './purchases';
import { orderPurchase } from './track-order';

/** Orders processed per turn of the event loop, so a big batch never stalls other requests. */
const ORDERS_PER_STEP = 50;

/**
 * One order, processed as a tracked order is (hold, coupons, earn rules,
 * return window, hash) but on its totals, as docs/DESIGN.md has it for batch
 * orders (the published batch item shows only its four fields); its other
 * fields (lineItems, extra, ...) are recorded in the activity. Returns the
 * points rewarded.
 */
export function processOrder(ctx: SandboxContext, account: AccountEntry, order: OrderItem): number {
  return recordPurchase(ctx, account, { ...orderPurchase(order), details: undefined }).earnedPoints;
}

/** Processes one order into the job's `results` or `errors`. */
function processItem(ctx: SandboxContext, account: AccountEntry, job: BatchJob, order: OrderItem, index: number): void {
  const base = { index, orderId: order.orderId, customerId: order.customerId };
  try {
    job.results.push({ ...base, rewardedPoints: processOrder(ctx, account, order) });
  } catch (err) {
    // A bug in one order fails that order (masked as 5000), not the batch.
    if (!isAppError(err)) ctx.logger.error({ err, jobOrderIndex: index }, 'batch order failed unexpectedly');
    const appError = isAppError(err) ? err : loyaltyErrors.internal('An internal error occurred');
    const body = toLoyaltyBody(appError, '');
    job.errors.push({ ...base, code: body.code, message: body.message });
  }
}

/** Processes the next few orders, then yields; ends the job when every order is processed. */
function step(ctx: SandboxContext, account: AccountEntry, job: BatchJob): void {
  if (job.cancelled) return;
  job.status = 'processing';
  try {
    const end = Math.min(job.processed + ORDERS_PER_STEP, job.total);
    for (; job.processed < end; job.processed++) processItem(ctx, account, job, job.orders[job.processed], job.processed);
  } catch (err) {
    ctx.logger.error({ err, jobId: job.id }, 'batch job failed');
    finish(ctx, job, 'failed');
    return;
  }
  if (job.processed < job.total) setImmediate(() => step(ctx, account, job));
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

/** `GET /batches/:batchId/status`: a job of another account, or an id that is no job number, is as unknown as one never made. */
export function readBatchStatus(ctx: SandboxContext, account: AccountEntry, batchId: string): BatchStatusResponse {
  const job = /^[0-9]{1,15}$/.test(batchId) ? ctx.batchJobs.get(Number(batchId)) : undefined;
  if (!job || job.apiKey !== account.settings.apiKey) throw loyaltyErrors.notFound(`Batch job "${batchId.slice(0, 40)}" was not found`);
  return {
    batchId: String(job.id),
    status: job.status,
    progress: job.total === 0 ? 100 : Math.floor((job.processed * 100) / job.total),
    totalItems: job.total,
    processedItems: job.processed,
    failedItems: job.errors.length,
    results: job.results.map((r) => ({ ...r })),
    errors: job.errors.map((e) => ({ ...e })),
  };
}
