import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { PeriodicTask } from '../platform/periodic-task';
import { isProblem } from '../platform/problem';
import { defineScripts, type RedisClient } from '../platform/redis';
import type { KeySlot, KeyState, LoyaltyKeys } from './keys';

/** A verdict the fleet shares, by key fingerprint (./keys): never the key. */
export interface SharedKeyVerdict {
  verdict: 'ok' | 'refused';
  at: number;
}

/**
 * What the fleet knows of each key pair, and the lease that lets one instance
 * per interval ask the loyalty service.
 */
export interface KeyVerdictStore {
  read(fingerprint: string): Promise<SharedKeyVerdict | undefined>;
  /** Keeps the newer of the stored verdict and this one. */
  write(fingerprint: string, verdict: SharedKeyVerdict): Promise<void>;
  /** True for the one caller that gets the lease for `ms`; one lease per `scope` (the key pairs checked). */
  lease(ms: number, scope: string): Promise<boolean>;
}

export class MemoryKeyVerdicts implements KeyVerdictStore {
  private readonly verdicts = new Map<string, SharedKeyVerdict>();
  private readonly leaseUntil = new Map<string, number>();
  constructor(private readonly now: () => number = Date.now) {}

  async read(fingerprint: string) {
    return this.verdicts.get(fingerprint);
  }

  async write(fingerprint: string, verdict: SharedKeyVerdict) {
    const was = this.verdicts.get(fingerprint);
    if (!was || was.at <= verdict.at) this.verdicts.set(fingerprint, verdict);
  }

  async lease(ms: number, scope: string) {
    if (this.now() < (this.leaseUntil.get(scope) ?? 0)) return false;
    this.leaseUntil.set(scope, this.now() + ms);
    return true;
  }
}

/** Two verdicts written out of order must not leave the older one standing. */
const WRITE = `local v = redis.call('GET', KEYS[1])
if v and tonumber(cjson.decode(v).at) > tonumber(ARGV[2]) then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[3])
return 1`;

interface VerdictScripts {
  keyVerdictWrite(key: string, verdict: string, at: string, ttlMs: string): Promise<unknown>;
}

/**
 * `<prefix>loyalty-key:<fingerprint>`: the newest verdict on that key pair,
 * kept a day (a belief that nobody refreshes expires); `<prefix>loyalty-key-check:<fingerprints>`:
 * the check's lease (SET NX PX), so one instance per interval asks for each set of key pairs.
 */
export class RedisKeyVerdicts implements KeyVerdictStore {
  private readonly redis: RedisClient & VerdictScripts;
  constructor(
    redis: RedisClient,
    private readonly prefix: string,
    private readonly keepMs = 86_400_000,
  ) {
    this.redis = defineScripts<VerdictScripts>(redis, { keyVerdictWrite: { keys: 1, lua: WRITE } });
  }

  async read(fingerprint: string) {
    const v = await this.redis.get(`${this.prefix}loyalty-key:${fingerprint}`);
    return v ? (JSON.parse(v) as SharedKeyVerdict) : undefined;
  }

  async write(fingerprint: string, verdict: SharedKeyVerdict) {
    await this.redis.keyVerdictWrite(`${this.prefix}loyalty-key:${fingerprint}`, JSON.stringify(verdict), String(verdict.at), String(this.keepMs));
  }

  async lease(ms: number, scope: string) {
    return (await this.redis.set(`${this.prefix}loyalty-key-check:${scope}`, randomUUID(), 'PX', ms, 'NX')) === 'OK';
  }
}

export function createKeyVerdicts(opts: { redis?: RedisClient; prefix: string; now?: () => number }): KeyVerdictStore {
  return opts.redis ? new RedisKeyVerdicts(opts.redis, opts.prefix) : new MemoryKeyVerdicts(opts.now);
}

/** The read the check makes: any customer's balance needs both keys; an unknown one answers 7000 to good keys. */
export interface KeyProbe {
  balance(customerId: string, ctx: { requestId: string; priority: 'background'; keySlot: KeySlot; till: null }): Promise<unknown>;
}

export const KEY_CHECK_CUSTOMER = 'pos-bff-key-check';

export interface KeyCheckOptions {
  keys: LoyaltyKeys;
  loyalty: KeyProbe;
  store: KeyVerdictStore;
  /** One check per this many ms, fleet-wide. */
  intervalMs: number;
  logger: Logger;
  now?: () => number;
}

/**
 * The loyalty keys' re-check: every instance adopts the fleet's newest
 * verdicts several times per interval (a Redis read), and the one instance
 * holding the interval's lease asks the loyalty service, per configured
 * slot, with an authenticated read at background priority through the
 * fleet's budget. Verdicts this instance learns from its own calls are
 * shared at once.
 */
export class KeyCheck {
  private readonly task: PeriodicTask;
  private readonly now: () => number;
  private readonly log: Logger;

  constructor(private readonly opts: KeyCheckOptions) {
    this.now = opts.now ?? Date.now;
    this.log = opts.logger.child({ component: 'loyalty-key-check' });
    this.task = new PeriodicTask({
      everyMs: Math.max(250, Math.floor(opts.intervalMs / 4)),
      logger: this.log,
      pass: () => this.pass(),
      messages: { failing: 'the loyalty key check is failing (Redis?)', recovered: 'the loyalty key check works again' },
    });
    opts.keys.onChange((slot, state, source) => {
      // One refusal in traffic (a 1002 for one resource, a stray answer) is checked before the fleet is told, so
      // it cannot take every instance out of the balancer alone.
      if (source === 'traffic' && state.verdict === 'refused') void this.confirm(slot);
      else if (source !== 'fleet') void this.share(slot, state);
    });
  }

  /** The first pass comes a quarter interval after start: a wrong key shows at once in the instance's own calls anyway. */
  start(): void {
    this.task.start();
  }

  stop(): Promise<void> {
    return this.task.stop();
  }

  /** One pass: adopt the fleet's verdicts; check upstream if this instance holds the lease. */
  async pass(): Promise<void> {
    const { keys, store } = this.opts;
    for (const slot of keys.slots()) {
      const shared = await store.read(keys.fingerprint(slot));
      if (shared) keys.learn(slot, shared.verdict, 'fleet', shared.at);
    }
    // Per set of key pairs, not per fleet: a host configured with other keys (a wrong one) is checked too.
    const scope = keys
      .slots()
      .map((slot) => keys.fingerprint(slot))
      .join('+');
    if (!(await store.lease(this.opts.intervalMs, scope))) return;
    for (const slot of keys.slots()) {
      const verdict = await this.check(slot);
      if (verdict === undefined) continue;
      const at = this.now();
      keys.learn(slot, verdict, 'check', at);
      await store.write(keys.fingerprint(slot), { verdict, at });
    }
  }

  /** What the service says of one slot's keys; undefined when it did not say (down, over budget). */
  private async check(slot: KeySlot): Promise<'ok' | 'refused' | undefined> {
    try {
      await this.opts.loyalty.balance(KEY_CHECK_CUSTOMER, { requestId: `key-check-${randomUUID()}`, priority: 'background', keySlot: slot, till: null });
      return 'ok';
    } catch (err) {
      if (isProblem(err, 'loyalty_key_refused')) return 'refused';
      // The made-up customer unknown (7000): the service read past the key check. Any other refusal (a proxy's bare 401) says nothing of the keys.
      if (isProblem(err, 'customer_not_found')) return 'ok';
      this.log.debug({ slot, code: (err as { code?: string }).code }, 'the loyalty key check got no verdict');
      return undefined;
    }
  }

  private readonly confirming = new Set<KeySlot>();

  /** Checks a refusal met in traffic at once (through the budget) and shares what the check says; no answer: not shared. */
  private async confirm(slot: KeySlot): Promise<void> {
    if (this.confirming.has(slot)) return;
    this.confirming.add(slot);
    try {
      const verdict = await this.check(slot);
      if (verdict === undefined) return;
      const at = this.now();
      this.opts.keys.learn(slot, verdict, 'check', at);
      await this.share(slot, { verdict, at });
    } finally {
      this.confirming.delete(slot);
    }
  }

  private async share(slot: KeySlot, state: KeyState): Promise<void> {
    if (state.verdict === 'unknown') return;
    try {
      await this.opts.store.write(this.opts.keys.fingerprint(slot), { verdict: state.verdict, at: state.at });
    } catch (err) {
      this.log.warn({ slot, err: { message: (err as Error).message } }, 'could not share a loyalty key verdict');
    }
  }
}
