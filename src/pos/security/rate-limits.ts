import type { RequestHandler, Response } from 'express';
import { problem } from '../../platform/problem';
import type { RedisClient } from '../../platform/redis';
import type { Logger } from 'pino';
import { RateLimiterAbstract, RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { AuthFailureGuard } from '../auth/failure-guard';
import { identityOf } from '../auth/terminal-auth';
import { deferAdmission } from './admission';

/**
 * Per-minute counters: in Redis when the BFF has Redis (so every instance
 * counts together), in this process otherwise. If Redis stops answering, an
 * in-process limiter takes over rather than refusing every till.
 */
export interface LimiterOptions {
  name: string;
  perMinute: number;
  redis?: RedisClient;
  keyPrefix: string;
}

export function perMinuteLimiter(o: LimiterOptions): RateLimiterAbstract {
  const common = { points: o.perMinute, duration: 60, keyPrefix: `${o.keyPrefix}rl:${o.name}` };
  if (!o.redis) return new RateLimiterMemory(common);
  return new RateLimiterRedis({ ...common, storeClient: o.redis, rejectIfRedisNotReady: true, insuranceLimiter: new RateLimiterMemory(common) });
}

const secondsOf = (ms: number) => Math.max(1, Math.ceil(ms / 1000));

function setRateLimitHeaders(res: Response, limit: number, r: RateLimiterRes): void {
  res.setHeader('RateLimit-Limit', String(limit));
  res.setHeader('RateLimit-Remaining', String(Math.max(0, r.remainingPoints)));
  res.setHeader('RateLimit-Reset', String(secondsOf(r.msBeforeNext)));
}

/**
 * `/pos/v1` requests per terminal per minute; one more is a 429 `rate_limited`
 * with Retry-After. Mount after terminalAuth. The count is registered here and
 * made together with the idempotency claim (see admission.ts), so the two share
 * one Redis round trip. A limiter failure lets the request through (logged): a
 * broken counter must not stop the checkout.
 */
export function terminalRateLimit(limiter: RateLimiterAbstract, logger: Logger): RequestHandler {
  return (req, res, next) => {
    const { terminal } = identityOf(res);
    deferAdmission(res, () =>
      limiter.consume(terminal.id).then(
        (passed) => {
          if (!res.headersSent) setRateLimitHeaders(res, limiter.points, passed);
        },
        (outcome: unknown) => {
          if (!(outcome instanceof RateLimiterRes)) {
            ((req as { log?: Logger }).log ?? logger).warn({ err: (outcome as Error)?.message }, 'terminal rate limiter failed; request let through');
            return;
          }
          if (!res.headersSent) setRateLimitHeaders(res, limiter.points, outcome);
          const wait = secondsOf(outcome.msBeforeNext);
          throw problem('rate_limited', `This terminal sent more than ${limiter.points} requests in a minute; try again in ${wait} s`, {
            retryAfterSeconds: wait,
            extra: { limitPerMinute: limiter.points },
          });
        },
      ),
    );
    next();
  };
}

/** Keys remembered as having failed recently; beyond this the oldest are forgotten (they are only a hint). */
const MAX_REMEMBERED_ADDRESSES = 10_000;

/**
 * Failed authentications per key per minute, on a limiter from
 * perMinuteLimiter. The shared counter is read only for a key that has
 * failed on this instance within the window: a credential that never failed
 * here (every good token) costs no Redis round trip on every request (the
 * bench showed each one matters), and a key failing on several instances
 * fails on each of them once at most before every instance consults the
 * fleet-wide count.
 */
export function authFailureGuard(limiter: RateLimiterAbstract, logger: Logger, now: () => number = Date.now): AuthFailureGuard {
  const warn = (err: unknown) => logger.warn({ err: (err as Error)?.message }, 'authentication failure counter failed');
  const windowMs = limiter.duration * 1000;
  const failedHere = new Map<string, number>();
  const failedRecently = (address: string) => {
    const at = failedHere.get(address);
    if (at === undefined) return false;
    if (now() - at < windowMs) return true;
    failedHere.delete(address);
    return false;
  };
  return {
    limit: limiter.points,
    async blockedFor(address) {
      if (!failedRecently(address)) return undefined;
      try {
        const r = await limiter.get(address);
        return r && r.consumedPoints >= limiter.points ? secondsOf(r.msBeforeNext) : undefined;
      } catch (err) {
        warn(err);
        return undefined;
      }
    },
    async record(address) {
      failedHere.delete(address);
      failedHere.set(address, now());
      if (failedHere.size > MAX_REMEMBERED_ADDRESSES) failedHere.delete(failedHere.keys().next().value as string);
      try {
        await limiter.consume(address);
      } catch (err) {
        // Over the limit is what we count towards; anything else is a counter fault.
        if (!(err instanceof RateLimiterRes)) warn(err);
      }
    },
  };
}
