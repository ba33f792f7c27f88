import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { upstreamTime } from '../../src/upstream';

/**
 * Date-times without an offset are UTC whatever the server's zone: the probe
 * runs in a child process with TZ=Pacific/Kiritimati (UTC+14), where a plain
 * Date.parse is 14 hours off.
 */

const UTC = Date.UTC(2024, 9, 16, 8, 11, 24, 675);
const TSX = path.join(__dirname, '../../node_modules/.bin/tsx');

it('reads a date-time without an offset as UTC on a server 14 hours from UTC', () => {
  const out = execFileSync(TSX, [path.join(__dirname, 'timezone-probe.ts')], {
    env: { ...process.env, TZ: 'Pacific/Kiritimati' },
    encoding: 'utf8',
    timeout: 60_000,
  });
  const probe = JSON.parse(out.trim().split('\n').pop() as string);
  // The probe really ran far from UTC: there the naive reading is 14 hours early.
  expect(probe.zone).toBe('Pacific/Kiritimati');
  expect(probe.offsetMinutes).toBe(-14 * 60);
  expect(probe.naive).toBe(UTC - 14 * 3600_000);
  expect({ read: probe.read, holdLookup: probe.holdLookup, coupon: probe.coupon }).toEqual({ read: UTC, holdLookup: UTC, coupon: UTC });
});

it('reads offsets, a date alone and microseconds', () => {
  expect(upstreamTime('2024-10-16T10:11:24.675+02:00')).toBe(UTC);
  // West of UTC: the sign is kept in every written form of the offset.
  expect(upstreamTime('2024-10-16T03:11:24.675-05:00')).toBe(UTC);
  expect(upstreamTime('2024-10-16T02:41:24.675-0530')).toBe(UTC);
  expect(upstreamTime('2024-10-16T03:11:24.675-05')).toBe(UTC);
  expect(upstreamTime('2024-10-16T08:11:24.675401Z')).toBe(UTC);
  expect(upstreamTime('2024-12-01')).toBe(Date.UTC(2024, 11, 1));
  expect(upstreamTime('nulla in aliqua')).toBeUndefined();
});
