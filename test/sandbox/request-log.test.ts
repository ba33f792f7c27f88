import { BucketLimit, RequestLog } from '../../src/sandbox/state/request-log';

/** The rule said plainly: every admitted time kept, windows counted by scanning them all. */
class Reference {
  private readonly admitted: number[] = [];
  constructor(private readonly limit: BucketLimit) {}

  private fits(at: number): boolean {
    const inLast = (ms: number) => this.admitted.filter((t) => t > at - ms).length;
    return inLast(1000) < this.limit.rate && inLast(30_000) < this.limit.quota;
  }

  admit(now: number): { ok: true } | { ok: false; retryAfterMs: number } {
    // Only the last 30 s can matter (keeps the scans short).
    while (this.admitted.length && this.admitted[0] <= now - 30_000) this.admitted.shift();
    if (this.fits(now)) {
      this.admitted.push(now);
      return { ok: true };
    }
    // Windows only free up when an admitted request leaves one of them: the first such moment that fits.
    const candidates = this.admitted
      .flatMap((t) => [t + 1000, t + 30_000])
      .filter((at) => at > now)
      .sort((a, b) => a - b);
    const at = candidates.find((c) => this.fits(c));
    if (at === undefined) throw new Error('the reference found no moment a request would pass');
    return { ok: false, retryAfterMs: at - now };
  }
}

describe('RequestLog (the sliding log behind the sandbox limits)', () => {
  it('agrees with a plain count of every admitted request over a long random run (the log is compacted on the way)', () => {
    let seed = 42;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const limit = { rate: 40, quota: 600 };
    const log = new RequestLog();
    const reference = new Reference(limit);
    let now = 0;
    let admitted = 0;
    for (let i = 0; i < 20_000; i++) {
      // Bursts (many at one instant) and gaps of up to 100 ms.
      if (random() < 0.7) now += Math.floor(random() * 100);
      const got = log.admit('acct\nbucket', limit, now);
      expect(got).toEqual(reference.admit(now));
      if (got.ok) admitted++;
    }
    // Enough passed that the expired prefix was dropped more than once (the log keeps only the last 30 s).
    expect(admitted).toBeGreaterThan(3 * 1024);
  });

  it('keeps buckets apart and forgets everything on clear', () => {
    const log = new RequestLog();
    const one = { rate: 1, quota: 1 };
    expect(log.admit('a', one, 0).ok).toBe(true);
    expect(log.admit('a', one, 0)).toEqual({ ok: false, retryAfterMs: 30_000 });
    expect(log.admit('b', one, 0).ok).toBe(true);
    log.clear();
    expect(log.admit('a', one, 0).ok).toBe(true);
  });
});
