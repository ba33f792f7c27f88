/**
 * Date-times as the loyalty service writes them. Its published examples carry
 * some without an offset ("2024-10-16T08:11:24.675401"); the service means UTC,
 * while `Date.parse` would read them as the server's local time. Every
 * date-time the BFF reads from an answer goes through here.
 */

const SHAPE = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}(?::\d{2})?)(\.\d+)?)?(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

/** Epoch milliseconds of an ISO 8601 date-time; one without an offset is UTC. Undefined when unreadable. */
export function upstreamTime(value: string): number | undefined {
  const m = SHAPE.exec(value.trim());
  if (!m) return undefined;
  const [, date, time, fraction, offset] = m;
  if (!time) return checked(Date.parse(`${date}T00:00:00Z`));
  // At most milliseconds: microseconds (as in the published examples) are cut, not rounded.
  const ms = fraction ? fraction.slice(0, 4).padEnd(4, '0') : '';
  const zone = offset ? normalOffset(offset) : 'Z';
  return checked(Date.parse(`${date}T${time.length === 5 ? `${time}:00` : time}${ms}${zone}`));
}

function normalOffset(offset: string): string {
  if (/^z$/i.test(offset)) return 'Z';
  const digits = offset.slice(1).replace(':', '');
  return `${offset[0]}${digits.slice(0, 2)}:${(digits.slice(2) || '00').padEnd(2, '0')}`;
}

function checked(ms: number): number | undefined {
  return Number.isFinite(ms) ? ms : undefined;
}
