import { defineScripts, redisUnavailable, type RedisClient } from '../../platform/redis';

/**
 * What the upstream's newest answer showed about OTPs, shared by the whole
 * fleet and kept across restarts: `true` a hold was refused for want of a code
 * (or for a wrong one), `false` a hold was placed without a code. The store
 * keeps when it was learnt; how long that is believed is the reader's rule
 * (./upstream-otp.ts).
 */
export interface OtpModeStore {
  /** undefined: no answer has shown it yet (or it was reset). */
  get(): Promise<LearntOtpMode | undefined>;
  /** Records what an answer received at `at` showed, unless a newer answer is recorded already. */
  record(required: boolean, at: number): Promise<void>;
  /** Forgets what was learnt (the otp-mode CLI's reset); true if something was there. */
  forget(): Promise<boolean>;
}

/** The stored value, as the previous release wrote it too: `at` is when it was learnt (epoch ms, the BFF's clock). */
export interface LearntOtpMode {
  required: boolean;
  at: number;
}

/** Anything else under the key is read as nothing learnt, so the next hold finds out again. */
function parseLearnt(v: string | null): LearntOtpMode | undefined {
  if (!v) return undefined;
  try {
    const seen = JSON.parse(v) as Partial<LearntOtpMode>;
    return typeof seen.required === 'boolean' && Number.isFinite(seen.at) ? { required: seen.required, at: seen.at as number } : undefined;
  } catch {
    return undefined;
  }
}

export class MemoryOtpMode implements OtpModeStore {
  private seen: LearntOtpMode | undefined;

  async get() {
    return this.seen;
  }

  async forget() {
    const had = this.seen !== undefined;
    this.seen = undefined;
    return had;
  }

  async record(required: boolean, at: number) {
    if (!this.seen || this.seen.at <= at) this.seen = { required, at };
  }
}

/** Two answers landing out of order must not leave the older one standing. */
const RECORD = `local v = redis.call('GET', KEYS[1])
local ok, seen = pcall(cjson.decode, v or '')
if ok and type(seen) == 'table' and tonumber(seen.at) and tonumber(seen.at) > tonumber(ARGV[2]) then return 0 end
redis.call('SET', KEYS[1], ARGV[1])
return 1`;

interface ModeScripts {
  otpModeRecord(key: string, seen: string, at: string): Promise<unknown>;
}

/** One key, `<prefix>otp-mode`, without a TTL: readers decide how long it is believed, and `show` can still tell an expired one. */
export class RedisOtpMode implements OtpModeStore {
  private readonly key: string;
  private readonly redis: RedisClient & ModeScripts;
  constructor(redis: RedisClient, prefix: string) {
    this.key = `${prefix}otp-mode`;
    this.redis = defineScripts<ModeScripts>(redis, { otpModeRecord: { keys: 1, lua: RECORD } });
  }

  async get() {
    return parseLearnt(await this.redis.get(this.key).catch(unavailable));
  }

  async forget() {
    return (await this.redis.del(this.key).catch(unavailable)) > 0;
  }

  async record(required: boolean, at: number) {
    const seen: LearntOtpMode = { required, at };
    await this.redis.otpModeRecord(this.key, JSON.stringify(seen), String(at)).catch(unavailable);
  }
}

export function createOtpMode(opts: { redis?: RedisClient; prefix: string }): OtpModeStore {
  return opts.redis ? new RedisOtpMode(opts.redis, opts.prefix) : new MemoryOtpMode();
}

function unavailable(err: unknown): never {
  throw redisUnavailable(err, 'OTP mode');
}
