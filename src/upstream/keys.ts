import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import { AppError } from '../platform/errors';
import { problem } from '../platform/problem';
import { isKeyFailure, markNotDelivered } from './errors';
import { markMayHaveLanded, nothingSent } from './outcome';

/** Where a key pair is configured: LOYALTY_*_KEY (`current`) or LOYALTY_*_KEY_NEXT (`next`, for a rotation). */
export type KeySlot = 'current' | 'next';
export const KEY_SLOTS: readonly KeySlot[] = ['current', 'next'];

export interface LoyaltyKeyPair {
  apiKey: string;
  secretKey: string;
}

/** What is known of a key pair: the service accepted it, refused it (codes 1000-1002), or nothing yet. */
export type KeyVerdict = 'ok' | 'refused' | 'unknown';

/** How a verdict was learnt: a call's answer, the periodic key check, or another instance (through the shared record). */
export type KeyVerdictSource = 'traffic' | 'check' | 'fleet';

export interface KeyState {
  verdict: KeyVerdict;
  /** When it was learnt (ms since the epoch); 0 for `unknown`. */
  at: number;
}

/**
 * A short, one-way name of a key pair, so instances can share what they know
 * of it through Redis without the keys themselves ever leaving the process.
 */
export function keyFingerprint(pair: LoyaltyKeyPair): string {
  return createHash('sha256').update('pos-bff loyalty key pair\n').update(pair.apiKey).update('\n').update(pair.secretKey).digest('hex').slice(0, 16);
}

/** The till's answer when no configured key is accepted: nothing was done, and it is not the till's to fix. */
export function keyRefused(slot: KeySlot, loyaltyCode: number | undefined, retryAfterSeconds: number): AppError {
  return markNotDelivered(
    problem(
      'loyalty_key_refused',
      `The loyalty service refused the middleware's ${slot === 'current' ? 'key' : 'next key'} (LOYALTY_API_KEY/LOYALTY_SECRET_KEY${slot === 'next' ? '_NEXT' : ''}); nothing was done. A manager must fix the keys`,
      { loyaltyCode, retryAfterSeconds },
    ),
  );
}

export interface LoyaltyKeysOptions {
  current: LoyaltyKeyPair;
  next?: LoyaltyKeyPair;
  logger: Logger;
  /** The Retry-After of `loyalty_key_refused`: when trying again may help (the key check's interval). */
  retryAfterSeconds?: number;
  now?: () => number;
}

/**
 * The loyalty keys as a belief: one pair per slot, each with what is known of
 * it and when. Calls use the slot in use (`current`, unless it is refused and
 * `next` is not); a key failure of one slot is tried once with the other
 * (safe: a key failure proves nothing was done). Verdicts come from every
 * answer (`learn`), the periodic check and the fleet's shared record.
 */
export class LoyaltyKeys {
  private readonly pairs: Partial<Record<KeySlot, LoyaltyKeyPair>>;
  private readonly states: Record<KeySlot, KeyState> = { current: { verdict: 'unknown', at: 0 }, next: { verdict: 'unknown', at: 0 } };
  private readonly log: Logger;
  private readonly now: () => number;
  private inUse: KeySlot;
  private readonly listeners: ((slot: KeySlot, state: KeyState, source: KeyVerdictSource) => void)[] = [];

  constructor(private readonly opts: LoyaltyKeysOptions) {
    this.pairs = { current: opts.current, ...(opts.next ? { next: opts.next } : {}) };
    this.log = opts.logger.child({ component: 'loyalty-keys' });
    this.now = opts.now ?? Date.now;
    this.inUse = 'current';
  }

  /** The configured slots, `current` first. */
  slots(): KeySlot[] {
    return KEY_SLOTS.filter((s) => this.pairs[s] !== undefined);
  }

  pair(slot: KeySlot): LoyaltyKeyPair {
    const p = this.pairs[slot];
    if (!p) throw new Error(`no loyalty key configured in slot ${slot}`);
    return p;
  }

  fingerprint(slot: KeySlot): string {
    return keyFingerprint(this.pair(slot));
  }

  state(slot: KeySlot): KeyState {
    return { ...this.states[slot] };
  }

  /** The slot calls use: `current` unless it is refused and `next` is configured and not refused. */
  active(): KeySlot {
    return this.states.current.verdict === 'refused' && this.pairs.next && this.states.next.verdict !== 'refused' ? 'next' : 'current';
  }

  /** True when the slot in use is known to be refused: every call would be. */
  refused(): boolean {
    return this.states[this.active()].verdict === 'refused';
  }

  /** Called on every verdict that changes a slot's state (metrics, the shared record). */
  onChange(listener: (slot: KeySlot, state: KeyState, source: KeyVerdictSource) => void): void {
    this.listeners.push(listener);
  }

  /** Records a verdict on a slot; a newer one wins, an older one (from the fleet) is ignored. */
  learn(slot: KeySlot, verdict: Exclude<KeyVerdict, 'unknown'>, source: KeyVerdictSource, at: number = this.now()): void {
    if (!this.pairs[slot]) return;
    const was = this.states[slot];
    if (at < was.at) return;
    this.states[slot] = { verdict, at };
    if (was.verdict !== verdict) {
      const log = verdict === 'refused' ? this.log.error.bind(this.log) : this.log.info.bind(this.log);
      log({ slot, verdict, source }, verdict === 'refused' ? `the loyalty service refused the ${slot} key` : `the loyalty service accepts the ${slot} key`);
      for (const l of this.listeners) {
        try {
          l(slot, this.state(slot), source);
        } catch (err) {
          this.log.warn({ err }, 'a key state listener failed');
        }
      }
    }
    this.noteInUse();
  }

  /** Logs once, when it changes, which slot calls use (never the key). */
  private noteInUse(): void {
    const now = this.active();
    if (now === this.inUse) return;
    this.inUse = now;
    this.log.warn({ slot: now }, `loyalty calls now use the ${now} key slot`);
  }

  /**
   * Runs a call with the slot in use, learning from its answer. On a key
   * failure that certainly did nothing, the call is sent once more with the
   * other slot (if configured). When no slot is
   * accepted the call ends with `loyalty_key_refused`. `how.slot` pins one
   * slot (the key check): no fallback then. `how.sendsSecret`: the call
   * carries the secret key, so its success shows the whole pair is accepted
   * (an API-key-only call's does not).
   */
  async use<T>(send: (pair: LoyaltyKeyPair) => Promise<T>, how: { slot?: KeySlot; sendsSecret: boolean }): Promise<T> {
    const { slot } = how;
    const first = slot ?? this.active();
    // A call pinned to a slot is the key check's: what it meets is a check's verdict, not traffic's.
    const tryWith = (s: KeySlot) => this.tryWith(s, send, how.sendsSecret, slot === undefined ? 'traffic' : 'check');
    try {
      return await tryWith(first);
    } catch (err) {
      if (!isKeyFailure(err)) throw err;
      const other: KeySlot = first === 'current' ? 'next' : 'current';
      // Tried even when known refused: before the rotation in the dashboard the next key is refused, after it only it works.
      if (slot === undefined && nothingSent(err) && this.pairs[other]) {
        try {
          return await tryWith(other);
        } catch (err2) {
          if (!isKeyFailure(err2)) throw err2;
          throw this.refusal(other, err2);
        }
      }
      throw this.refusal(first, err);
    }
  }

  private async tryWith<T>(slot: KeySlot, send: (pair: LoyaltyKeyPair) => Promise<T>, sendsSecret: boolean, source: KeyVerdictSource): Promise<T> {
    try {
      const result = await send(this.pair(slot));
      if (sendsSecret && this.states[slot].verdict !== 'ok') this.learn(slot, 'ok', source);
      return result;
    } catch (err) {
      if (isKeyFailure(err)) this.learn(slot, 'refused', source);
      throw err;
    }
  }

  /** The key failure as the till's answer, keeping what the attempts may have done. */
  private refusal(slot: KeySlot, err: unknown): AppError {
    const refused = keyRefused(slot, (err as AppError).loyaltyCode, this.opts.retryAfterSeconds ?? 30);
    return nothingSent(err) ? refused : markMayHaveLanded(refused);
  }

  /** Every configured key string, for scrubbing text before it is logged. */
  secrets(): string[] {
    return this.slots().flatMap((s) => [this.pair(s).apiKey, this.pair(s).secretKey]);
  }
}
