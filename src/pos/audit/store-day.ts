import { problem } from '../../platform/problem';
import { upstreamTime } from '../../upstream/date-time';

/**
 * A store's day in its time zone (STORE_TIME_ZONE), with Intl alone: the
 * offset at an instant is read from how that instant is written there.
 */

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Epoch ms of a calendar date's UTC midnight (a date already checked). */
const utcMidnight = (date: string) => upstreamTime(date) as number;

const formats = new Map<string, Intl.DateTimeFormat>();
function formatIn(timeZone: string): Intl.DateTimeFormat {
  let f = formats.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formats.set(timeZone, f);
  }
  return f;
}

function partsAt(at: number, timeZone: string): Record<'year' | 'month' | 'day' | 'hour' | 'minute' | 'second', string> {
  const parts = Object.fromEntries(
    formatIn(timeZone)
      .formatToParts(new Date(at))
      .map((p) => [p.type, p.value]),
  );
  return parts as Record<'year' | 'month' | 'day' | 'hour' | 'minute' | 'second', string>;
}

/** How far the zone's wall clock is ahead of UTC at `at`, in ms. */
function offsetAt(at: number, timeZone: string): number {
  const p = partsAt(at, timeZone);
  const wall = Date.UTC(Number(p.year), Number(p.month) - 1, Number(p.day), Number(p.hour), Number(p.minute), Number(p.second));
  return wall - Math.floor(at / 1000) * 1000;
}

/** Epoch ms of the wall-clock midnight that starts `date` in the zone. */
function midnight(date: string, timeZone: string): number {
  const wall = utcMidnight(date);
  // Twice: the offset at the guess may differ from the offset at midnight (a daylight-saving change that day).
  const guess = wall - offsetAt(wall, timeZone);
  return wall - offsetAt(guess, timeZone);
}

export function isCalendarDate(date: string): boolean {
  const m = DATE.exec(date);
  if (!m) return false;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return d.toISOString().slice(0, 10) === date;
}

/** The day as [from, to], both inclusive epoch ms. */
export function dayWindow(date: string, timeZone: string): { from: number; to: number } {
  const next = new Date(utcMidnight(date) + 86_400_000).toISOString().slice(0, 10);
  return { from: midnight(date, timeZone), to: midnight(next, timeZone) - 1 };
}

/** `YYYY-MM-DD` of `at` in the zone. */
export function localDate(at: number, timeZone: string): string {
  const p = partsAt(at, timeZone);
  return `${p.year}-${p.month}-${p.day}`;
}

/** `YYYY-MM-DD HH:MM:SS` of `at` in the zone. */
export function localDateTime(at: number, timeZone: string): string {
  const p = partsAt(at, timeZone);
  return `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute}:${p.second}`;
}

/** `HH:MM` of `at` in the zone. */
export function localTime(at: number, timeZone: string): string {
  const p = partsAt(at, timeZone);
  return `${p.hour}:${p.minute}`;
}

const invalid = (path: string, message: string) => problem('validation_failed', `Invalid ${path}: ${message}`, { errors: [{ path, message }] });

/**
 * The window a report covers: a store's day (`date`, in STORE_TIME_ZONE), or
 * `from`..`to` (ISO 8601, at most `maxDays`: a reconciliation reads the
 * loyalty service once per sale, so a month of a busy store is a job, not a
 * request); with neither, the day before `now`.
 */
export function windowOf(
  q: { date?: string; from?: string; to?: string },
  timeZone: string,
  now: number,
  maxDays = 7,
): { from: number; to: number; date?: string } {
  if (q.date !== undefined && (q.from !== undefined || q.to !== undefined)) throw invalid('date', 'give a date, or from and to, not both');
  if (q.from !== undefined || q.to !== undefined) {
    // Read as UTC when it has no offset, as every date-time here is.
    const from = q.from === undefined ? undefined : upstreamTime(q.from);
    const to = q.to === undefined ? undefined : upstreamTime(q.to);
    if (from === undefined) throw invalid('from', 'must be an ISO 8601 date-time, given with to');
    if (to === undefined) throw invalid('to', 'must be an ISO 8601 date-time, given with from');
    if (to < from) throw invalid('to', 'must not be before from');
    if (to - from > maxDays * 86_400_000) throw invalid('to', `the window may be at most ${maxDays} days`);
    return { from, to };
  }
  const date = q.date ?? localDate(now - 86_400_000, timeZone);
  if (!isCalendarDate(date)) throw invalid('date', 'must be a calendar date, YYYY-MM-DD');
  return { ...dayWindow(date, timeZone), date };
}
