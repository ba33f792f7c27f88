/** How terminalAuth asks whether an address failed too often, and tells of a new failure. */
export interface AuthFailureGuard {
  readonly limit: number;
  /** Seconds until `address` may try again, or undefined when it may try now. */
  blockedFor(address: string): Promise<number | undefined>;
  /** Counts one failed authentication from `address`. */
  record(address: string): Promise<void>;
}
