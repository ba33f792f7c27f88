/**
 * Fault rules set through `PUT /_sandbox/faults`: per v4.0 operation (or "*"),
 * latency, an error status, a dropped connection or a broken body, before the
 * operation runs or after it (applied, then answered badly), with a
 * probability and an optional number of times. Sandbox-wide; a reset clears them.
 */
export interface FaultRule {
  /** A SERVED_OPERATIONS id (e.g. "payment") or "*" for every operation. */
  operation: string;
  latencyMs?: number;
  status?: number;
  /** 0..1: the chance the rule fires on a matching call. */
  probability: number;
  /** Destroy the socket without answering. */
  drop: boolean;
  /** Run the operation first (its write is applied), then act on its answer. */
  after: boolean;
  /** Answer the operation's own status with a body cut short (always after the operation). */
  brokenBody: boolean;
  /** Fire at most this many times (undefined = no limit). */
  times?: number;
}

export interface StoredFaultRule extends FaultRule {
  /** How many calls it has fired on so far. */
  applied: number;
}

export class FaultRules {
  private rules: StoredFaultRule[] = [];

  /** PUT semantics: the new list replaces the old one and its counters. */
  replace(rules: FaultRule[]): void {
    this.rules = rules.map((r) => ({ ...r, applied: 0 }));
  }

  list(): readonly StoredFaultRule[] {
    return this.rules;
  }

  clear(): void {
    this.rules = [];
  }
}
