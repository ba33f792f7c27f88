import type { RedisClient } from '../../platform/redis';
import { RedisRecordStore, type RedisLayout } from '../money/records/redis-store';
import { DEFAULT_RECHECK_MS, DEFAULT_RETENTION, redemptionRules, RetentionPolicy } from './record';
import { decodeRedemption, encodeRedemption, toBase36 } from './redis-codec';
import { redemptionScripts } from './redis-scripts';
import { RedemptionRecords } from './store';
import type { Redemption } from './types';

export interface RedisRedemptionStoreOptions extends Partial<RetentionPolicy> {
  /** Key prefix, e.g. "posbff:". Keys are `<prefix>{rdm}:r:<id>` and `<prefix>{rdm}:open`. */
  prefix: string;
  /** Compare-and-set rounds before `change` gives up with 409. Default 8. */
  maxAttempts?: number;
  /** How long a due claimed hold stays out of the sweeper's sight after a sweep returned it. Default 30 s. */
  recheckMs?: number;
  /** The sweep hands a due unclaimed hold over instead of expiring it, for the sweeper to ask upstream first. */
  askBeforeEnding?: boolean;
}

/**
 * Redemptions in Redis, shared by every BFF instance: each record one string
 * key (redis-codec.ts) with a TTL, open holds also in a sorted set scored by
 * expiresAt. All keys share the `{rdm}` hash tag: the sweep must change the
 * index and the records of many customers in one script, so they live in one
 * cluster slot (one master) rather than spread per customer. A due hold is
 * expired inside the sweep and read scripts (redis-scripts.ts), so whichever
 * gets there first expires it, once.
 *
 * The connection belongs to the caller (it is shared with other stores):
 * `close()` does not quit it.
 */
export class RedisRedemptionStore extends RedemptionRecords {
  constructor(redis: RedisClient, opts: RedisRedemptionStoreOptions) {
    const policy: RetentionPolicy = {
      ttlAfterEndMs: opts.ttlAfterEndMs ?? DEFAULT_RETENTION.ttlAfterEndMs,
      otpTtlMs: opts.otpTtlMs ?? DEFAULT_RETENTION.otpTtlMs,
    };
    const layout: RedisLayout<Redemption> = {
      tag: 'rdm',
      index: 'open',
      what: 'redemption store',
      encode: encodeRedemption,
      decode: decodeRedemption,
      scripts: redemptionScripts,
      ends: { by: 'script', args: (now) => [toBase36(now), String(policy.ttlAfterEndMs), opts.askBeforeEnding ? '1' : '0'] },
    };
    const options = { prefix: opts.prefix, maxAttempts: opts.maxAttempts ?? 8, recheckMs: opts.recheckMs ?? DEFAULT_RECHECK_MS };
    super('redis', new RedisRecordStore(redis, redemptionRules(policy, { askBeforeEnding: opts.askBeforeEnding }), layout, options));
  }
}
