import { problem } from '../../platform/problem';
import type { RedisClient } from '../../platform/redis';
import { isEnding } from './record';
import type { RedemptionStore } from './types';

/**
 * A cap on the redemptions one terminal has open (otp_required or held): each
 * one locks a customer's points, so a runaway or hostile till must not be able
 * to lock points without end.
 *
 * Each terminal has a set of the redemption ids it started, with the time each
 * was admitted. The set is only pruned when it looks full: then each member's
 * state is read from the redemption store, and ended or vanished ones leave.
 * An id with no record yet is counted for a grace period (its hold is still
 * being placed). Starts racing in the same millisecond on different instances
 * may overshoot the cap by a few; it is a brake, not a ledger.
 */
export interface OpenRedemptionCap {
  readonly limit: number;
  /**
   * Admits redemption `id` for `terminalId`, or throws 409 too_many_open_redemptions.
   * Returns `release`, to call when the redemption is not created after all.
   */
  admit(terminalId: string, id: string, now: number): Promise<() => Promise<void>>;
}

interface Member {
  id: string;
  at: number;
}

/** Where the per-terminal sets live. */
export interface TerminalSets {
  add(terminalId: string, id: string, at: number): Promise<void>;
  list(terminalId: string): Promise<Member[]>;
  remove(terminalId: string, ids: string[]): Promise<void>;
}

export class MemoryTerminalSets implements TerminalSets {
  private readonly sets = new Map<string, Map<string, number>>();

  async add(terminalId: string, id: string, at: number) {
    const set = this.sets.get(terminalId) ?? new Map<string, number>();
    set.set(id, at);
    this.sets.set(terminalId, set);
  }

  async list(terminalId: string) {
    return [...(this.sets.get(terminalId) ?? new Map<string, number>())].map(([id, at]) => ({ id, at }));
  }

  async remove(terminalId: string, ids: string[]) {
    const set = this.sets.get(terminalId);
    for (const id of ids) set?.delete(id);
    if (set?.size === 0) this.sets.delete(terminalId);
  }
}

/** One sorted set per terminal (score = admitted at), forgotten a day after its last admission. */
export class RedisTerminalSets implements TerminalSets {
  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
    private readonly ttlMs = 24 * 3600_000,
  ) {}

  private key(terminalId: string) {
    return `${this.prefix}open-redemptions:{${terminalId}}`;
  }

  async add(terminalId: string, id: string, at: number) {
    await this.redis.multi().zadd(this.key(terminalId), at, id).pexpire(this.key(terminalId), this.ttlMs).exec();
  }

  async list(terminalId: string) {
    const flat = await this.redis.zrange(this.key(terminalId), 0, -1, 'WITHSCORES');
    const members: Member[] = [];
    for (let i = 0; i < flat.length; i += 2) members.push({ id: flat[i], at: Number(flat[i + 1]) });
    return members;
  }

  async remove(terminalId: string, ids: string[]) {
    if (ids.length) await this.redis.zrem(this.key(terminalId), ...ids);
  }
}

export interface OpenRedemptionCapOptions {
  limit: number;
  store: RedemptionStore;
  sets: TerminalSets;
  /** How long an admitted id without a record still counts. Default 5 minutes. */
  pendingGraceMs?: number;
}

export function openRedemptionCap(o: OpenRedemptionCapOptions): OpenRedemptionCap {
  const grace = o.pendingGraceMs ?? 5 * 60_000;
  /** Still open: an open record, or no record yet within the grace period. */
  const stillOpen = async (m: Member, now: number) => {
    const r = await o.store.get(m.id, now);
    return r ? !isEnding(r) : now - m.at < grace;
  };
  return {
    limit: o.limit,
    async admit(terminalId, id, now) {
      // Reserve first, then count the ones ahead (earlier, ties by id): of any
      // number of concurrent starts, the first `limit` are admitted, not none.
      await o.sets.add(terminalId, id, now);
      const release = () => o.sets.remove(terminalId, [id]);
      const ahead = (await o.sets.list(terminalId)).filter((m) => m.id !== id && (m.at < now || (m.at === now && m.id < id)));
      if (ahead.length < o.limit) return release;
      const open = await Promise.all(ahead.map((m) => stillOpen(m, now)));
      await o.sets.remove(
        terminalId,
        ahead.filter((_, i) => !open[i]).map((m) => m.id),
      );
      const count = open.filter(Boolean).length;
      if (count >= o.limit) {
        await release();
        throw problem(
          'too_many_open_redemptions',
          `This terminal already has ${count} open redemptions (the limit is ${o.limit}); complete or void one first`,
          { extra: { openRedemptions: count, limit: o.limit } },
        );
      }
      return release;
    },
  };
}
