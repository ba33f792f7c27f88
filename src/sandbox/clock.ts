/**
 * The sandbox's own clock: real time plus an offset the admin API can advance.
 * Everything that expires (holds, OTPs, pending points, coupons) reads this
 * clock, so tests move time instead of sleeping.
 */
export class SandboxClock {
  private offsetMs: number;
  private readonly initialOffsetMs: number;

  constructor(
    startTime?: number,
    private readonly realNow: () => number = Date.now,
  ) {
    this.initialOffsetMs = startTime === undefined ? 0 : startTime - realNow();
    this.offsetMs = this.initialOffsetMs;
  }

  now(): number {
    return this.realNow() + this.offsetMs;
  }

  iso(at = this.now()): string {
    return new Date(at).toISOString();
  }

  advance(ms: number): number {
    this.offsetMs += ms;
    return this.now();
  }

  offset(): number {
    return this.offsetMs;
  }

  /** Back to where the sandbox started (reset). */
  reset(): void {
    this.offsetMs = this.initialOffsetMs;
  }
}
