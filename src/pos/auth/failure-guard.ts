/**
 * How terminalAuth asks whether a key (a presented credential's digest, or an
 * address for requests with none) failed too often, and tells of a new failure.
 */
export interface AuthFailureGuard {
  readonly limit: number;
  /** Seconds until `key` may try again, or undefined when it may try now. */
  blockedFor(key: string): Promise<number | undefined>;
  /** Counts one failed authentication of `key`. */
  record(key: string): Promise<void>;
}
