import type { RedisClient } from '../../platform/redis';
import type { Logger } from 'pino';
import { redisUnavailable } from '../../platform/redis';
import type { OutboxEntry } from '../outbox/types';

/**
 * Which store uploaded each batch job. Upstream job ids are shared by the
 * whole account and easy to guess, so a job's status is shown only to
 * terminals of the store that uploaded it (another store's reads as unknown,
 * as redemptions do).
 */
export interface BatchJobStore {
  readonly kind: 'redis' | 'memory';
  remember(jobId: number, storeId: string, now: number): Promise<void>;
  /** The uploading store, or null when the job is unknown here (never uploaded through us, or forgotten). */
  storeOf(jobId: number, now: number): Promise<string | null>;
}

/** How long a job's store is kept: end-of-day uploads are looked at within days. */
export const BATCH_JOB_TTL_MS = 30 * 24 * 3600_000;

export class MemoryBatchJobStore implements BatchJobStore {
  readonly kind = 'memory' as const;
  private readonly jobs = new Map<number, { storeId: string; until: number }>();

  constructor(private readonly ttlMs = BATCH_JOB_TTL_MS) {}

  async remember(jobId: number, storeId: string, now: number): Promise<void> {
    this.jobs.set(jobId, { storeId, until: now + this.ttlMs });
    // Forget the expired now and then, so a long-running process does not grow without end.
    if (this.jobs.size % 1024 === 0) for (const [id, j] of this.jobs) if (j.until <= now) this.jobs.delete(id);
  }

  async storeOf(jobId: number, now: number): Promise<string | null> {
    const j = this.jobs.get(jobId);
    return j && j.until > now ? j.storeId : null;
  }
}

/** One string key per job, `<prefix>{job}:<jobId>`, with a TTL; shared by every instance. */
export class RedisBatchJobStore implements BatchJobStore {
  readonly kind = 'redis' as const;

  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
    private readonly ttlMs = BATCH_JOB_TTL_MS,
  ) {}

  async remember(jobId: number, storeId: string): Promise<void> {
    try {
      await this.redis.set(this.key(jobId), storeId, 'PX', this.ttlMs);
    } catch (err) {
      throw redisUnavailable(err, 'batch job store');
    }
  }

  async storeOf(jobId: number): Promise<string | null> {
    try {
      return await this.redis.get(this.key(jobId));
    } catch (err) {
      throw redisUnavailable(err, 'batch job store');
    }
  }

  private key(jobId: number): string {
    return `${this.prefix}{job}:${jobId}`;
  }
}

export function createBatchJobStore(opts: { redis?: RedisClient; prefix: string }): BatchJobStore {
  return opts.redis ? new RedisBatchJobStore(opts.redis, opts.prefix) : new MemoryBatchJobStore();
}

/**
 * Records which store uploaded a job (only its terminals may read it). The
 * upload is done either way, so a failure here is logged, not thrown: the
 * till must not upload again (its orders would fail as duplicates), and the
 * job's status then reads as unknown.
 */
export async function rememberJob(
  store: BatchJobStore,
  job: { jobId: number; storeId: string; now: number; logger: Logger; requestId?: string },
): Promise<void> {
  await store.remember(job.jobId, job.storeId, job.now).catch((err) => {
    job.logger.error(
      { requestId: job.requestId, jobId: job.jobId, storeId: job.storeId, err: (err as Error).message },
      'could not record the store of a batch job; its status will read as unknown',
    );
  });
}

/** The outbox worker's `recordAnswer`: a delivered batch upload's job is its store's, so that store's terminals can read it. */
export function rememberDeliveredJob(store: BatchJobStore, clock: () => number) {
  return async (entry: OutboxEntry, result: Record<string, unknown>, logger: Logger): Promise<void> => {
    if (entry.work.kind !== 'batchOrders' || typeof result.jobId !== 'number') return;
    await rememberJob(store, { jobId: result.jobId, storeId: entry.storeId, now: clock(), logger, requestId: entry.requestId });
  };
}
