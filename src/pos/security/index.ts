import type { RedisClient } from '../../platform/redis';
import type { Logger } from 'pino';
import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import type { HttpSettings, SecuritySettings } from '../../platform/settings';
import type { RedemptionStore } from '../redemptions/types';
import { MemoryTerminalSets, openRedemptionCap, OpenRedemptionCap, RedisTerminalSets } from '../redemptions/open-redemptions';
import type { AuthFailureGuard } from '../auth/failure-guard';
import { authFailureGuard, perMinuteLimiter } from './rate-limits';

export { corsFor, headerCountLimit, hostNameOf, opsDocsOrigin } from './http-limits';
export { terminalRateLimit } from './rate-limits';

/**
 * An address may fail this many times the per-credential limit in a minute
 * before its failing requests are refused: a device retrying one old token
 * is stopped by its own count long before, and a valid token from the same
 * address is never refused by it (it is checked only once a request failed).
 */
export const ADDRESS_FAILURE_FACTOR = 10;

/** The hostile-caller defences createBffApp mounts; each is off when absent. */
export interface BffSecurity {
  /** Requests per terminal per minute on `/pos/v1`. */
  terminalLimiter?: RateLimiterAbstract;
  /** Failed authentications per presented credential (per address without one) per minute. */
  authFailures?: AuthFailureGuard;
  /** Failed authentications per address, whatever was presented: bounds guessing with a new token each time. */
  addressFailures?: AuthFailureGuard;
  /** Browser origins allowed to call `/pos/v1` (CORS); empty = none. */
  corsOrigins?: readonly string[];
  /** More request headers than this is a 431. */
  maxHeaderCount?: number;
  /** Verified TLS client certificates authenticate terminals (mTLS). */
  clientCertificates?: boolean;
}

/** The defences as configured; limiters count in Redis (under `keyPrefix`) when the BFF has it. */
export function bffSecurity(
  settings: { security: SecuritySettings; http: HttpSettings },
  store: { redis: RedisClient | undefined; keyPrefix: string },
  logger: Logger,
): BffSecurity {
  const { security, http } = settings;
  const limiter = (name: string, perMinute: number) =>
    perMinute > 0 ? perMinuteLimiter({ name, perMinute, redis: store.redis, keyPrefix: store.keyPrefix }) : undefined;
  const terminalLimiter = limiter('terminal', security.terminalRateLimitPerMinute);
  const failures = limiter('auth-failures', security.authFailureLimitPerMinute);
  const perAddress = limiter('auth-failures-address', security.authFailureLimitPerMinute * ADDRESS_FAILURE_FACTOR);
  return {
    terminalLimiter,
    authFailures: failures && authFailureGuard(failures, logger),
    addressFailures: perAddress && authFailureGuard(perAddress, logger),
    corsOrigins: http.corsOrigins,
    maxHeaderCount: http.maxHeaderCount,
    clientCertificates: Boolean(http.tls?.clientCaFile),
  };
}

/** MAX_OPEN_REDEMPTIONS_PER_TERMINAL over the BFF's redemption store; undefined when the cap is off. */
export function openRedemptionCapFor(
  security: SecuritySettings,
  redemptions: RedemptionStore,
  store: { redis: RedisClient | undefined; keyPrefix: string },
): OpenRedemptionCap | undefined {
  const limit = security.maxOpenRedemptionsPerTerminal;
  if (limit <= 0) return undefined;
  const sets = store.redis ? new RedisTerminalSets(store.redis, store.keyPrefix) : new MemoryTerminalSets();
  return openRedemptionCap({ limit, store: redemptions, sets });
}
