import { statSync, type Stats } from 'node:fs';
import { timingSafeEqual } from 'node:crypto';
import type { Logger } from 'pino';
import { silentLogger } from '../../platform/logger';
import { loadTerminalsFile, readTerminalsFile, type TerminalsFile } from './file';
import { tokenDigest } from './tokens';
import type { Store, Terminal, TerminalIdentity } from './types';

export type AuthenticationFailure = 'unknown_token' | 'revoked' | 'store_missing' | 'token_rotated_out';

/** The outcome of checking a token, with the reason kept for the log (never for the caller). */
export type Verification = { ok: true; identity: TerminalIdentity } | { ok: false; reason: AuthenticationFailure; terminalId?: string };

export interface TerminalRegistryOptions {
  /** Milliseconds clock; injected by tests. */
  now?: () => number;
  /** How often, at most, a request looks at the file's stat to see if it changed. */
  checkIntervalMs?: number;
  logger?: Logger;
  /** Called once per failed reload (the same failure seen again on the next look is not counted again). */
  onReloadFailure?: () => void;
  /**
   * Fleet mode (TERMINALS_SHARED=redis): the registry also arrives from Redis (adopt()), and the file, when this
   * host has one, is taken only with a higher generation than the registry served; a missing file is no problem.
   */
  shared?: boolean;
}

/** Whether the terminals served are the file's: false while its newest change could not be loaded. */
export interface TerminalsFileState {
  current: boolean;
  /** What is wrong with the file, while not current. */
  problem?: string;
}

interface Entry {
  digest: Buffer;
  terminal: Terminal;
  store?: Store;
  /** A rotated-out token's entry: accepted until then (epoch ms). */
  validUntil?: number;
}

// Compared against when no hash matches, so a miss does the same work as a hit.
const NO_MATCH = Buffer.alloc(32);

function deepFreeze<T extends object>(o: T): Readonly<T> {
  for (const v of Object.values(o)) if (v && typeof v === 'object') deepFreeze(v);
  return Object.freeze(o);
}

// A rename gives a new inode, so an atomic write is seen even within one mtime tick.
const stampOf = (s: Stats) => `${s.ino}:${s.size}:${s.mtimeMs}:${s.ctimeMs}`;

/**
 * Who may call `/pos/v1`: the terminals file in memory, keyed by token hash.
 * The file is re-read when it changes (checked at most once per interval on the
 * request path), so a revoke from the CLI takes effect without a restart.
 */
export class TerminalRegistry {
  private byHash = new Map<string, Entry>();
  private byId = new Map<string, Entry>();
  private storeList: readonly Store[] = [];
  private served: TerminalsFile | undefined;
  private readonly shared: boolean;
  private stamp = '';
  private lastCheck = Number.NEGATIVE_INFINITY;
  private failedStamp = '';
  private problem: string | undefined;
  private readonly onReloadFailure: () => void;
  private readonly now: () => number;
  private readonly checkIntervalMs: number;
  private readonly logger: Logger;

  /**
   * Loads the file now; an invalid file throws a ConfigError naming the field.
   * A missing one is an empty set, looked for again as any change is: a fresh
   * install starts before its first terminal is added, and serves it then.
   */
  constructor(
    readonly file: string,
    options: TerminalRegistryOptions = {},
  ) {
    this.now = options.now ?? Date.now;
    this.checkIntervalMs = options.checkIntervalMs ?? 1000;
    this.logger = options.logger ?? silentLogger;
    this.onReloadFailure = options.onReloadFailure ?? (() => undefined);
    this.shared = options.shared ?? false;
    if (readTerminalsFile(file)) this.reload();
    else {
      this.lastCheck = this.now();
      this.failedStamp = 'missing';
    }
  }

  get terminalCount(): number {
    return this.byId.size;
  }

  /** The generation served (0 for a file older than generations, -1 while nothing was loaded). */
  get generation(): number {
    return this.served ? (this.served.generation ?? 0) : -1;
  }

  /** What is served (stores and terminals as loaded, with their generation): the copy an instance re-seeds Redis from. */
  snapshot(): Readonly<TerminalsFile> | undefined {
    return this.served;
  }

  /** Terminals that can call now (not revoked, their store known), after a look at the file if it is due. */
  activeTerminals(): number {
    this.refresh();
    let active = 0;
    for (const { terminal, store } of this.byId.values()) if (!terminal.revokedAt && store) active++;
    return active;
  }

  /**
   * After a look at the file if it is due: whether the terminals served are
   * what it says. Not current after a change that could not be loaded (bad
   * JSON, unreadable, deleted after a load): the terminals loaded before are
   * still served, so a revocation since is not applied. A fresh install's
   * missing file is current (nothing was loaded from it).
   */
  fileState(): TerminalsFileState {
    this.refresh();
    return this.problem === undefined ? { current: true } : { current: false, problem: this.problem };
  }

  /** Re-reads the file. On a bad file it throws and keeps the last good set. */
  reload(): void {
    // Stat before reading: a change in between then costs one extra reload, never a missed one.
    let stamp = '';
    try {
      stamp = stampOf(statSync(this.file));
    } catch {
      // loadTerminalsFile below says what is wrong with the file
    }
    const data = loadTerminalsFile(this.file);
    // Shared: this host's copy of the file may be behind what the fleet serves (Redis); never step back to it.
    if (!this.shared || (data.generation ?? 0) > this.generation) this.install(data);
    this.stamp = stamp;
    this.lastCheck = this.now();
    this.problem = undefined;
  }

  /**
   * Serves a registry that came from Redis (fleet mode) when its generation is higher than the one served;
   * true when it was taken. The data is validated already (parseTerminalsFile).
   */
  adopt(data: TerminalsFile): boolean {
    if ((data.generation ?? 0) <= this.generation) return false;
    this.install(data);
    return true;
  }

  private install(data: TerminalsFile): void {
    const frozen = deepFreeze(structuredClone(data));
    const stores = new Map(frozen.stores.map((s) => [s.id, s]));
    const byHash = new Map<string, Entry>();
    const byId = new Map<string, Entry>();
    for (const t of frozen.terminals) {
      const entry: Entry = { digest: Buffer.from(t.tokenSha256, 'hex'), terminal: t, store: stores.get(t.storeId) };
      byHash.set(t.tokenSha256, entry);
      byId.set(t.id, entry);
      if (t.previousTokenSha256 && t.previousValidUntil) {
        const validUntil = Date.parse(t.previousValidUntil);
        byHash.set(t.previousTokenSha256, { ...entry, digest: Buffer.from(t.previousTokenSha256, 'hex'), validUntil });
      }
    }
    this.byHash = byHash;
    this.byId = byId;
    this.storeList = [...stores.values()];
    this.served = frozen;
  }

  /** Reloads if the file changed since the last look; never throws, a bad file is logged and the last good set kept. */
  private refresh(): void {
    const now = this.now();
    if (now - this.lastCheck < this.checkIntervalMs) return;
    this.lastCheck = now;
    let stamp: string;
    try {
      stamp = stampOf(statSync(this.file));
    } catch (err) {
      // Shared: a host without the file is normal, the registry comes from Redis.
      if (!this.shared) this.reportFailure('missing', err);
      return;
    }
    if (stamp === this.stamp || stamp === this.failedStamp) return;
    try {
      this.reload();
      this.failedStamp = '';
      this.logger.info({ file: this.file, terminals: this.byId.size, generation: this.generation }, 'terminals file reloaded');
    } catch (err) {
      this.failedStamp = stamp;
      this.reportFailure(stamp, err);
    }
  }

  private reportFailure(key: string, err: unknown): void {
    if (key === 'missing' && this.failedStamp === 'missing') return; // say it once, not once a second
    if (key === 'missing') this.failedStamp = 'missing';
    this.problem = (err as Error).message;
    this.onReloadFailure();
    this.logger.error({ file: this.file, problem: (err as Error).message }, 'terminals file unusable; keeping the terminals loaded before');
  }

  /** The stores of the file (after a look at it if due): a sale this BFF lost is matched to one by the branch it carried. */
  stores(): readonly Store[] {
    this.refresh();
    return this.storeList;
  }

  /** Checks a presented token; the reason for a refusal is for the log only. */
  verify(token: string): Verification {
    this.refresh();
    const digest = tokenDigest(token);
    const entry = this.byHash.get(digest.toString('hex'));
    // The map lookup by the token's SHA-256 decides. Its timing depends on that digest,
    // which a guesser cannot steer towards a stored one, so it tells nothing about real
    // tokens. The comparison below only re-checks what the lookup found; it decides nothing.
    const equal = timingSafeEqual(entry ? entry.digest : NO_MATCH, digest);
    if (!entry || !equal) return { ok: false, reason: 'unknown_token' };
    return this.outcome(entry);
  }

  /**
   * Checks a terminal named by something already proven, such as a verified
   * TLS client certificate (mTLS): the same revocation and store rules as a token.
   */
  verifyTerminalId(terminalId: string): Verification {
    this.refresh();
    const entry = this.byId.get(terminalId);
    if (!entry) return { ok: false, reason: 'unknown_token' };
    return this.outcome(entry);
  }

  private outcome({ terminal, store, validUntil }: Entry): Verification {
    if (terminal.revokedAt) return { ok: false, reason: 'revoked', terminalId: terminal.id };
    if (validUntil !== undefined && !(this.now() < validUntil)) return { ok: false, reason: 'token_rotated_out', terminalId: terminal.id };
    if (!store) return { ok: false, reason: 'store_missing', terminalId: terminal.id };
    return { ok: true, identity: { terminal, store } };
  }

  authenticate(token: string): TerminalIdentity | null {
    const result = this.verify(token);
    return result.ok ? result.identity : null;
  }
}
