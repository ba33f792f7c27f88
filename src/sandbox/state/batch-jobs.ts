import type { BatchItemError, BatchItemResult, BatchJobStatus, OrderItem } from '../../contract';

/** One `POST /batch/orders` job: its orders, and the orders recorded and refused so far. */
export interface BatchJob {
  id: number;
  /** The account that submitted it; other accounts cannot see it. */
  apiKey: string;
  status: BatchJobStatus;
  total: number;
  /** Orders still to process (emptied when the job ends, to free memory). */
  orders: OrderItem[];
  /** Orders processed so far (recorded or refused). */
  processed: number;
  results: BatchItemResult[];
  errors: BatchItemError[];
  createdAt: number;
  finishedAt?: number;
  /** Set by `clear()` (reset, close): the runner stops at its next step. */
  cancelled: boolean;
}

/** Finished jobs kept for status reads; the oldest finished ones go first. */
const MAX_JOBS = 1000;

/** Batch jobs of every account, by numeric job id. */
export class BatchJobs {
  /**
   * Ids keep counting across resets, so a caller still polling a job from
   * before a reset gets 404 rather than someone else's job.
   */
  private nextId = 1;
  private readonly jobs = new Map<number, BatchJob>();

  create(apiKey: string, orders: OrderItem[], now: number): BatchJob {
    const job: BatchJob = {
      id: this.nextId++,
      apiKey,
      status: 'pending',
      total: orders.length,
      orders,
      processed: 0,
      results: [],
      errors: [],
      createdAt: now,
      cancelled: false,
    };
    this.jobs.set(job.id, job);
    this.evict();
    return job;
  }

  get(id: number): BatchJob | undefined {
    return this.jobs.get(id);
  }

  /** Drops every job; running ones stop at their next step. */
  clear(): void {
    for (const job of this.jobs.values()) job.cancelled = true;
    this.jobs.clear();
  }

  private evict(): void {
    if (this.jobs.size <= MAX_JOBS) return;
    for (const [id, job] of this.jobs) {
      if (this.jobs.size <= MAX_JOBS) break;
      if (job.status === 'completed' || job.status === 'failed') this.jobs.delete(id);
    }
  }
}
