import { scanKeys } from '../../platform/redis-scan';
import { defineScripts, redisUnavailable, type RedisClient } from '../../platform/redis';
import type { StoredResponse } from '../stored-response';
import type { AnswerFate, TillAnswer, TillAnswerStore } from './types';

/** KEYS: answer hash. ARGV: fate. Sets the fate once; returns the fate that holds, or false when there is no answer. */
const DECIDE = `
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
redis.call('HSETNX', KEYS[1], 'f', ARGV[1])
return redis.call('HGET', KEYS[1], 'f')
`;

/** KEYS: answer hash. ARGV: response. Settles an answer that still exists (an expired one stays gone). */
const SETTLE = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], 'r', ARGV[1])
return 1
`;

/** KEYS: answer hash. ARGV: the response read. Deletes the answer only if its response is still that one. */
const FORGET = `
if redis.call('HGET', KEYS[1], 'r') ~= ARGV[1] then return 0 end
return redis.call('DEL', KEYS[1])
`;

interface AnswerScripts {
  tillAnswerDecide(key: string, fate: string): Promise<string | null>;
  tillAnswerSettle(key: string, response: string): Promise<number>;
  tillAnswerForget(key: string, response: string): Promise<number>;
}

/**
 * Answers in Redis, shared by the fleet, so a read-back or a same-key retry
 * landing on another instance finds them. A hash per answer,
 * `<prefix>answer:{<terminalId>}:<requestId>` (c: createdAt, r: the final
 * response as JSON, f: fate), and `<prefix>answer-key:{<terminalId>}:<key>`
 * naming the request id; both expire with the TTL. The hash tag keeps a
 * terminal's keys in one cluster slot.
 */
export class RedisTillAnswerStore implements TillAnswerStore {
  readonly kind = 'redis' as const;
  private readonly redis: RedisClient & AnswerScripts;

  constructor(
    redis: RedisClient,
    private readonly prefix: string,
  ) {
    this.redis = defineScripts<AnswerScripts>(redis, {
      tillAnswerDecide: { keys: 1, lua: DECIDE },
      tillAnswerSettle: { keys: 1, lua: SETTLE },
      tillAnswerForget: { keys: 1, lua: FORGET },
    });
  }

  async open(a: { terminalId: string; requestId: string; key?: string; createdAt: number }, ttlMs: number): Promise<void> {
    // A record under this id already (an id made again is not expected, but must not inherit an old answer or fate): dropped first.
    const m = this.redis
      .multi()
      .del(this.answerKey(a.terminalId, a.requestId))
      .hset(this.answerKey(a.terminalId, a.requestId), 'c', String(a.createdAt))
      .pexpire(this.answerKey(a.terminalId, a.requestId), ttlMs);
    if (a.key !== undefined) m.set(this.indexKey(a.terminalId, a.key), a.requestId, 'PX', ttlMs);
    await this.call(() => m.exec());
  }

  async get(terminalId: string, requestId: string): Promise<TillAnswer | undefined> {
    const h = await this.call(() => this.redis.hgetall(this.answerKey(terminalId, requestId)));
    if (!h.c) return undefined;
    const a: TillAnswer = { requestId, terminalId, createdAt: Number(h.c) };
    if (h.r) a.response = JSON.parse(h.r) as StoredResponse;
    if (h.f === 'till' || h.f === 'released') a.fate = h.f;
    return a;
  }

  async byKey(terminalId: string, key: string): Promise<string | undefined> {
    return (await this.call(() => this.redis.get(this.indexKey(terminalId, key)))) ?? undefined;
  }

  async settle(terminalId: string, requestId: string, response: StoredResponse): Promise<void> {
    await this.call(() => this.redis.tillAnswerSettle(this.answerKey(terminalId, requestId), JSON.stringify(response)));
  }

  async decide(terminalId: string, requestId: string, fate: AnswerFate): Promise<AnswerFate | undefined> {
    const got = await this.call(() => this.redis.tillAnswerDecide(this.answerKey(terminalId, requestId), fate));
    return got === 'till' || got === 'released' ? got : undefined;
  }

  async forgetAnswers(names: (response: StoredResponse) => boolean): Promise<number> {
    let forgotten = 0;
    await this.call(() =>
      scanKeys(this.redis, `${this.prefix}answer:*`, async (keys) => {
        for (const key of keys) {
          const r = await this.redis.hget(key, 'r');
          if (r && names(JSON.parse(r) as StoredResponse)) forgotten += await this.redis.tillAnswerForget(key, r);
        }
      }),
    );
    return forgotten;
  }

  private answerKey(terminalId: string, requestId: string): string {
    return `${this.prefix}answer:{${terminalId}}:${requestId}`;
  }

  private indexKey(terminalId: string, key: string): string {
    return `${this.prefix}answer-key:{${terminalId}}:${key}`;
  }

  private async call<T>(command: () => Promise<T>): Promise<T> {
    try {
      return await command();
    } catch (err) {
      throw redisUnavailable(err, 'answer store');
    }
  }
}
