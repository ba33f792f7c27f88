/**
 * Run by timezone.test.ts in a child process with TZ set far from UTC (jest's
 * own process keeps the zone it started with). Prints what it read as JSON.
 */
import { ANSWERS, upstreamTime } from '../../src/upstream';

const NO_OFFSET = '2024-10-16T08:11:24.675401';
console.log(
  JSON.stringify({
    zone: process.env.TZ,
    offsetMinutes: new Date(Date.UTC(2024, 9, 16)).getTimezoneOffset(),
    naive: Date.parse(NO_OFFSET),
    read: upstreamTime(NO_OFFSET),
    holdLookup: ANSWERS.holdLookup.parse({ dateToExpire: NO_OFFSET }).dateToExpire,
    coupon: ANSWERS.coupons.parse({ coupons: [{ code: 'TEN', expiryDate: NO_OFFSET }] }).coupons[0].expiryDate,
  }),
);
