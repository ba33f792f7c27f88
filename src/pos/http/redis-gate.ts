import type { RequestHandler } from 'express';
import { problem } from '../../platform/problem';
import type { RedisClient } from '../../platform/redis';

/**
 * In front of routes that cannot work without Redis (redemptions): while the
 * connection is down they answer 503 `redis_unavailable` at once, before a
 * hold is placed upstream that could not be recorded. The client reconnects
 * by itself; the gate opens again as soon as it is ready.
 */
export function requireRedis(redis: RedisClient): RequestHandler {
  return (_req, _res, next) => {
    if (redis.status === 'ready') return next();
    next(problem('redis_unavailable', 'The redemption store (Redis) is unavailable; try again shortly', { retryAfterSeconds: 1 }));
  };
}
