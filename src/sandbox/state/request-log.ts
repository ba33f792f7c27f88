import { QUOTA_WINDOW_SECONDS } from '../../contract';

/** A bucket's figures for one account: requests per second and per 30-s window. */
export interface BucketLimit {
  rate: number;
  quota: number;
}

const SECOND_MS = 1000;
const QUOTA_WINDOW_MS = QUOTA_WINDOW_SECONDS * 1000;

/**
 * The times of the requests each account's bucket let through in the last
 * 30 s, oldest first. A sliding log rather than fixed windows: the published
 * figures hold for ANY one second and ANY 30 s (a fixed window lets twice the
 * rate through across its edge), and it can say exactly when the next request
 * would pass. It holds at most `quota` times per bucket, since refused requests
 * are not logged. Times come from the sandbox clock; a reset, which turns that
 * clock back, clears every log.
 */
export class RequestLog {
  private readonly logs = new Map<string, { times: number[]; head: number }>();

  /**
   * Logs a request at `now` if both limits allow it; otherwise logs nothing
   * and returns how long (ms) until one would pass.
   */
  admit(key: string, limit: BucketLimit, now: number): { ok: true } | { ok: false; retryAfterMs: number } {
    let log = this.logs.get(key);
    if (!log) this.logs.set(key, (log = { times: [], head: 0 }));
    const { times } = log;
    while (log.head < times.length && times[log.head] <= now - QUOTA_WINDOW_MS) log.head++;
    // Keep the array from growing without bound: drop the expired prefix once it is most of it.
    if (log.head > 1024 && log.head * 2 > times.length) {
      times.splice(0, log.head);
      log.head = 0;
    }
    // A window of `ms` holding `count` requests has room again once its count-th newest request leaves it.
    const freeAt = (count: number, ms: number) => {
      const i = times.length - count;
      return i >= log.head ? times[i] + ms : now;
    };
    const passesAt = Math.max(freeAt(limit.rate, SECOND_MS), freeAt(limit.quota, QUOTA_WINDOW_MS));
    if (passesAt > now) return { ok: false, retryAfterMs: passesAt - now };
    times.push(now);
    return { ok: true };
  }

  clear(): void {
    this.logs.clear();
  }
}
