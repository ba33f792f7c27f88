import type { RequestHandler } from 'express';
import { LimitBucket, Operation, PUBLISHED_LIMITS, QUOTA_WINDOW_SECONDS, SERVED_OPERATION_BUCKET, ServedOperationId } from '../../contract';
import type { RateLimitSettings } from '../accounts';
import type { SandboxContext } from '../context';
import { loyaltyErrors } from '../errors';
import type { BucketLimit } from '../state/request-log';
import { accountFrom } from './keys';

/** A bucket's figures for an account: its own where set, else the published ones times the multiplier. */
export function bucketLimit(settings: RateLimitSettings, bucket: LimitBucket): BucketLimit {
  const published = PUBLISHED_LIMITS[bucket];
  const own = settings.buckets[bucket] ?? {};
  const scaled = (n: number) => Math.max(1, Math.floor(n * settings.multiplier));
  return { rate: own.rate ?? scaled(published.rate), quota: own.quota ?? scaled(published.quota) };
}

/**
 * Counts each v4.0 request against its account's bucket (after the key checks,
 * so the account is known) and refuses one past the rate or the 30-s quota with
 * 429 and Retry-After, before anything runs: a refused request changes nothing
 * and is not counted. A request that passes counts even if it then fails.
 */
export function enforceRateLimits(ctx: SandboxContext): RequestHandler {
  return (_req, res, next) => {
    const op = res.locals.operation as Operation;
    const account = accountFrom(res);
    const settings = account.settings.rateLimits;
    if (!settings.enforced) return next();
    const bucket = SERVED_OPERATION_BUCKET[op.id as ServedOperationId];
    const limit = bucketLimit(settings, bucket);
    const verdict = ctx.requestLog.admit(`${account.settings.apiKey}\n${bucket}`, limit, ctx.clock.now());
    if (verdict.ok) return next();
    const retryAfter = Math.ceil(verdict.retryAfterMs / 1000);
    const row = PUBLISHED_LIMITS[bucket].row;
    next(
      loyaltyErrors.rateLimited(
        `Too many requests: ${row} allows ${limit.rate} per second and ${limit.quota} per ${QUOTA_WINDOW_SECONDS} s for this account; retry in ${retryAfter} s`,
        retryAfter,
      ),
    );
  };
}
