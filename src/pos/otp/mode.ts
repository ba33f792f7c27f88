import { defineScripts, redisUnavailable, type RedisClient } from '../../platform/redis';

/**
 * What the upstream's newest answer showed about OTPs, shared by the whole
 * fleet and kept across restarts: `true` a hold was refused for want of a code
 * (or for a wrong one), `false` a hold was placed without a code.
 */
export interface OtpModeStore {
  /** undefined: no answer has shown it yet. */
  get(): Promise<boolean | undefined>;
  /** Records what an answer received at `at` showed, unless a newer answer is recorded already. */
  record(required: boolean, at: number): Promise<void>;
}

interface Seen {
  required: boolean;
  at: number;
}

export class MemoryOtpMode implements OtpModeStore {
  private seen: Seen | undefined;

  async get() {
    return this.seen?.required;
  }

  async record(required: boolean, at: number) {
    if (!this.seen || this.seen.at <= at) this.seen = { required, at };
  }
}

/** Two answers landing out of order must not leave the older one standing. */
const RECORD = `local v = redis.call('GET', KEYS[1])
if v and tonumber(cjson.decode(v).at) > tonumber(ARGV[2]) then return 0 end
redis.call('SET', KEYS[1], ARGV[1])
return 1`;

interface ModeScripts {
  otpModeRecord(key: string, seen: string, at: string): Promise<unknown>;
}

/** One key, `<prefix>otp-mode`, without a TTL: it describes the loyalty account, not a request. */
export class RedisOtpMode implements OtpModeStore {
  private readonly key: string;
  private readonly redis: RedisClient & ModeScripts;
  constructor(redis: RedisClient, prefix: string) {
    this.key = `${prefix}otp-mode`;
    this.redis = defineScripts<ModeScripts>(redis, { otpModeRecord: { keys: 1, lua: RECORD } });
  }

  async get() {
    const v = await this.redis.get(this.key).catch(unavailable);
    return v ? (JSON.parse(v) as Seen).required : undefined;
  }

  async record(required: boolean, at: number) {
    const seen: Seen = { required, at };
    await this.redis.otpModeRecord(this.key, JSON.stringify(seen), String(at)).catch(unavailable);
  }
}

export function createOtpMode(opts: { redis?: RedisClient; prefix: string }): OtpModeStore {
  return opts.redis ? new RedisOtpMode(opts.redis, opts.prefix) : new MemoryOtpMode();
}

function unavailable(err: unknown): never {
  throw redisUnavailable(err, 'OTP mode');
}
