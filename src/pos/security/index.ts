import type { RedisClient } from '../../platform/redis';
import type { Logger } from 'pino';
import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import type { HttpSettings, SecuritySettings } from '../../platform/settings';
import type { RedemptionStore } from '../redemptions/types';
import { MemoryTerminalSets, openRedemptionCap, OpenRedemptionCap, RedisTerminalSets } from '../redemptions/open-redemptions';
import type { AuthFailureGuard } from '../auth/failure-guard';
import { authFailureGuard, perMinuteLimiter } from './rate-limits';

export { corsFor, headerCountLimit } from './http-limits';
export type { AuthFailureGuard } from '../auth/failure-guard';
export { authFailureGuard, perMinuteLimiter, terminalRateLimit, type LimiterOptions } from './rate-limits';
export {
  MemoryTerminalSets,
  openRedemptionCap,
  RedisTerminalSets,
  type OpenRedemptionCap,
  type OpenRedemptionCapOptions,
  type TerminalSets,
} from '../redemptions/open-redemptions';

/** The hostile-caller defences createBffApp mounts; each is off when absent. */
export interface BffSecurity {
  /** Requests per terminal per minute on `/pos/v1`. */
  terminalLimiter?: RateLimiterAbstract;
  /** Failed authentications per source address per minute. */
  authFailures?: AuthFailureGuard;
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
  return {
    terminalLimiter,
    authFailures: failures && authFailureGuard(failures, logger),
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
