import { problem } from '../../platform/problem';
import { redisUnavailable, type RedisClient } from '../../platform/redis';
import { DEFAULT_RECHECK_MS, DEFAULT_RETENTION, firstVersion, isOpen, nextVersion, retentionMs, RetentionPolicy } from './record';
import { decodeRedemption, encodeRedemption, toBase36 } from './redis-codec';
import { RedemptionScripts, withRedemptionScripts } from './redis-scripts';
import type { ChangeResult, Redemption, RedemptionStore } from './types';

export interface RedisRedemptionStoreOptions extends Partial<RetentionPolicy> {
  /** Key prefix, e.g. "posbff:". Keys are `<prefix>{rdm}:r:<id>` and `<prefix>{rdm}:open`. */
  prefix: string;
  /** Compare-and-set rounds before `change` gives up with 409. Default 8. */
  maxAttempts?: number;
  /** How long a due claimed hold stays out of the sweeper's sight after a sweep returned it. Default 30 s. */
  recheckMs?: number;
}

function unavailable(err: unknown): unknown {
  return redisUnavailable(err, 'redemption store');
}

/**
 * Redemptions in Redis, shared by every BFF instance. Each record is one
 * string key with a TTL; open holds are also in a sorted set scored by
 * expiresAt, which the sweeper claims from atomically. Every script names
 * its keys in KEYS, and all keys share the `{rdm}` hash tag: the sweep must
 * change the index and the records of many customers in one script, so they
 * live in one cluster slot (one master) rather than spread per customer.
 *
 * The connection belongs to the caller (it is shared with other stores):
 * `close()` does not quit it.
 */
export class RedisRedemptionStore implements RedemptionStore {
  readonly kind = 'redis' as const;
  private readonly redis: RedisClient & RedemptionScripts;
  private readonly recordPrefix: string;
  private readonly openKey: string;
  private readonly policy: RetentionPolicy;
  private readonly maxAttempts: number;
  private readonly recheckMs: number;
  private readonly listeners = new Set<(r: Redemption) => void>();

  constructor(redis: RedisClient, opts: RedisRedemptionStoreOptions) {
    this.redis = withRedemptionScripts(redis);
    this.recordPrefix = `${opts.prefix}{rdm}:r:`;
    this.openKey = `${opts.prefix}{rdm}:open`;
    this.policy = {
      ttlAfterEndMs: opts.ttlAfterEndMs ?? DEFAULT_RETENTION.ttlAfterEndMs,
      otpTtlMs: opts.otpTtlMs ?? DEFAULT_RETENTION.otpTtlMs,
    };
    this.maxAttempts = opts.maxAttempts ?? 8;
    this.recheckMs = opts.recheckMs ?? DEFAULT_RECHECK_MS;
  }

  async create(redemption: Redemption): Promise<void> {
    const record = firstVersion(redemption);
    const written = await this.write(record, '0', record.updatedAt);
    if (written !== 1) throw problem('redemption_exists', `Redemption ${record.id} already exists`);
  }

  async get(id: string, now: number): Promise<Redemption | null> {
    return this.read(id, now);
  }

  async change(id: string, now: number, change: (current: Redemption) => Redemption | string): Promise<ChangeResult> {
    for (let attempt = 0; attempt < this.maxAttempts; attempt++) {
      const current = await this.read(id, now);
      if (!current) return { ok: false, reason: 'not_found' };
      const proposed = change(structuredClone(current));
      const next = typeof proposed === 'string' ? proposed : nextVersion(current, proposed, now);
      if (typeof next === 'string') return { ok: false, reason: 'rejected', redemption: current, detail: next };
      const written = await this.write(next, String(current.version), now);
      if (written === 1) return { ok: true, redemption: next };
      if (written === -1) return { ok: false, reason: 'not_found' };
      // 0: another writer (a change, the sweeper) got there first; read again and re-decide.
    }
    throw problem('redemption_busy', `Redemption ${id} is being changed by another request; try again`);
  }

  async sweepDue(now: number, limit: number): Promise<Redemption[]> {
    if (!(limit > 0)) return [];
    const due = await this.call(() => this.redis.zrangebyscore(this.openKey, '-inf', now, 'LIMIT', 0, Math.floor(limit)));
    if (!due.length) return [];
    const records = due.map((id) => this.recordPrefix + id);
    const reply = await this.call(() =>
      this.redis.rdmSweep(
        1 + due.length,
        this.openKey,
        ...records,
        String(now),
        toBase36(now),
        String(this.policy.ttlAfterEndMs),
        String(now + this.recheckMs),
        ...due,
      ),
    );
    const expired: Redemption[] = [];
    for (let i = 0; i < reply.length; i += 2) expired.push(decodeRedemption(reply[i], reply[i + 1]));
    return expired;
  }

  async countOpen(): Promise<number> {
    return this.call(() => this.redis.zcard(this.openKey));
  }

  async close(): Promise<void> {
    this.listeners.clear();
  }

  onReadExpiry(listener: (redemption: Redemption) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Reads a record, expiring it first (in the same script as the sweeper) if its hold is due. */
  private async read(id: string, now: number): Promise<Redemption | null> {
    const reply = await this.call(() =>
      this.redis.rdmRead(this.recordPrefix + id, this.openKey, id, String(now), toBase36(now), String(this.policy.ttlAfterEndMs)),
    );
    if (!reply) return null;
    const record = decodeRedemption(id, reply[1]);
    if (Number(reply[0]) === 1) this.emitReadExpiry(record);
    return record;
  }

  private write(r: Redemption, expectedVersion: string, now: number): Promise<number> {
    const ttl = Math.max(1, Math.ceil(retentionMs(r, now, this.policy)));
    const score = isOpen(r) ? String(r.expiresAt) : '';
    return this.call(() => this.redis.rdmWrite(this.recordPrefix + r.id, this.openKey, expectedVersion, r.id, encodeRedemption(r), String(ttl), score));
  }

  private emitReadExpiry(r: Redemption): void {
    for (const listener of this.listeners) {
      try {
        listener(structuredClone(r));
      } catch {
        // A listener's fault must not fail the read that triggered it.
      }
    }
  }

  private async call<T>(command: () => Promise<T>): Promise<T> {
    try {
      return await command();
    } catch (err) {
      throw unavailable(err);
    }
  }
}
