import { NotFoundError } from '../../../src/platform/errors';
import { HoldLookupAnswer } from '../../../src/upstream/answers';
import { unavailable } from '../../../src/upstream/errors';
import type { LoyaltyClient } from '../../../src/upstream';
import {
  lockCarriedWith,
  onRecordOfCall,
  recordDiffers,
  recordOf,
  refundLinesDigest,
  sameWrite,
  WriteTaken,
  WriteUnconfirmed,
  type PaymentWrite,
  type RefundWrite,
} from '../../../src/pos/money/ids/same-write';

type Transaction = { transactionType: string; transactionId: string; amount: number; equivalentPoints: number };
type Reader = Pick<LoyaltyClient, 'orderTransactions' | 'holdLookup'>;

/** Fakes of the two reads the upstream's record is made of; the hold is read through the client's own answer reader. */
function upstream(transactions: Transaction[] | Error, hold: Record<string, unknown> = { state: 'used' }): Reader {
  return {
    orderTransactions: async () => {
      if (transactions instanceof Error) throw transactions;
      return { transactions: transactions as never, count: transactions.length };
    },
    holdLookup: async () => HoldLookupAnswer.parse({ dateToExpire: '2030-01-01T00:10:00Z', ...hold }),
  };
}

const line = (transactionType: string, transactionId: string, amount: number, equivalentPoints = 0): Transaction => ({
  transactionType,
  transactionId,
  amount,
  equivalentPoints,
});
const ctx = { requestId: 'rq-1' };

const PLAIN: PaymentWrite = { kind: 'payment', paymentId: 'p-1', customerId: 'c-1', totalPaid: 50, hold: null, coupons: null };
const WITH_LOCK: PaymentWrite = { ...PLAIN, coupons: { lockReference: 'lk-1', codes: ['WELCOME10'] } };
const WITH_HOLD: PaymentWrite = { ...PLAIN, hold: { reference: 'h-1', points: 250 } };
const PAID = [line('PaymentReward', 'p-1', 50, 5)];

describe('sameWrite: a payment', () => {
  it('is the same write when the record shows its total and the BFF recorded the same identity', async () => {
    await expect(sameWrite(upstream(PAID), PLAIN, recordOf(PLAIN), ctx)).resolves.toEqual({ kind: 'same' });
    await expect(sameWrite(upstream(PAID), WITH_LOCK, recordOf(WITH_LOCK), ctx)).resolves.toEqual({ kind: 'same' });
  });

  it('is another write when the BFF recorded the earlier write without the lock this one carries', async () => {
    await expect(sameWrite(upstream(PAID), WITH_LOCK, recordOf(PLAIN), ctx)).resolves.toMatchObject({ kind: 'other' });
    await expect(sameWrite(upstream(PAID), PLAIN, recordOf(WITH_LOCK), ctx)).resolves.toMatchObject({ kind: 'other' });
    await expect(
      sameWrite(upstream(PAID), WITH_LOCK, recordOf({ ...WITH_LOCK, coupons: { lockReference: 'lk-2', codes: ['WELCOME10'] } }), ctx),
    ).resolves.toMatchObject({
      kind: 'other',
    });
    await expect(
      sameWrite(upstream(PAID), WITH_LOCK, recordOf({ ...WITH_LOCK, coupons: { lockReference: 'lk-1', codes: ['OTHER'] } }), ctx),
    ).resolves.toMatchObject({
      kind: 'other',
    });
  });

  it('is another write when the record shows another total, or no payment at all (absent)', async () => {
    await expect(sameWrite(upstream([line('PaymentReward', 'p-1', 49)]), PLAIN, recordOf(PLAIN), ctx)).resolves.toMatchObject({ kind: 'other' });
    await expect(sameWrite(upstream([]), PLAIN, recordOf(PLAIN), ctx)).resolves.toMatchObject({ kind: 'other', absent: true });
    await expect(sameWrite(upstream(new NotFoundError('transaction_not_found', 'no')), PLAIN, recordOf(PLAIN), ctx)).resolves.toMatchObject({ absent: true });
    await expect(sameWrite(upstream(PAID), { ...PLAIN, totalPaid: Number.NaN }, recordOf(PLAIN), ctx)).resolves.toMatchObject({ kind: 'other' });
  });

  it('is another customer’s write when the BFF recorded another customer', async () => {
    await expect(sameWrite(upstream(PAID), PLAIN, recordOf({ ...PLAIN, customerId: 'c-2' }), ctx)).resolves.toMatchObject({ kind: 'other' });
  });

  it('is unknown when the BFF has no record of the earlier write, or one of the previous release (no identity fields)', async () => {
    await expect(sameWrite(upstream(PAID), PLAIN, null, ctx)).resolves.toMatchObject({ kind: 'unknown' });
    await expect(sameWrite(upstream(PAID), PLAIN, { customerId: 'c-1', paymentId: 'p-1', totalPaid: 50 }, ctx)).resolves.toMatchObject({ kind: 'unknown' });
  });

  it('takes a lock whose own record names this payment as carried by the earlier attempt (an older entry cannot say)', async () => {
    // No hold: the record shows no redemption, so the older entry need not say.
    const older = { customerId: 'c-1', paymentId: 'p-1', totalPaid: 50 };
    await expect(sameWrite(upstream(PAID), WITH_LOCK, older, ctx, { carriedLock: { lockReference: 'lk-1', codes: ['WELCOME10'] } })).resolves.toEqual({
      kind: 'same',
    });
    await expect(sameWrite(upstream(PAID), WITH_LOCK, older, ctx)).resolves.toMatchObject({ kind: 'unknown' });
    await expect(sameWrite(upstream(PAID), WITH_LOCK, older, ctx, { carriedLock: { lockReference: 'lk-9', codes: ['WELCOME10'] } })).resolves.toMatchObject({
      kind: 'unknown',
    });
    // Codes the till named beside the lock are not shown by the lock's record.
    const moreCodes = { ...WITH_LOCK, coupons: { lockReference: 'lk-1', codes: ['WELCOME10', 'EXTRA'] } };
    await expect(sameWrite(upstream(PAID), moreCodes, older, ctx, { carriedLock: { lockReference: 'lk-1', codes: ['WELCOME10'] } })).resolves.toMatchObject({
      kind: 'unknown',
    });
  });

  it('with a hold: the record shows the redemption of its points and the hold used; an older entry need not name the hold', async () => {
    const redeemed = [...PAID, line('Redemption', 'p-1', 2.5, 250)];
    await expect(sameWrite(upstream(redeemed), WITH_HOLD, recordOf(WITH_HOLD), ctx)).resolves.toEqual({ kind: 'same' });
    await expect(sameWrite(upstream(redeemed), WITH_HOLD, { ...recordOf(WITH_HOLD), holdReference: undefined }, ctx)).resolves.toEqual({ kind: 'same' });
    await expect(sameWrite(upstream(PAID), WITH_HOLD, recordOf(WITH_HOLD), ctx)).resolves.toMatchObject({ kind: 'other' });
    await expect(sameWrite(upstream([...PAID, line('Redemption', 'p-1', 1, 100)]), WITH_HOLD, recordOf(WITH_HOLD), ctx)).resolves.toMatchObject({
      kind: 'other',
    });
    await expect(sameWrite(upstream(redeemed, { state: 'active' }), WITH_HOLD, recordOf(WITH_HOLD), ctx)).resolves.toMatchObject({ kind: 'other' });
    // A write naming no hold is not one that redeemed points.
    await expect(sameWrite(upstream(redeemed), PLAIN, recordOf(PLAIN), ctx)).resolves.toMatchObject({ kind: 'other' });
  });

  it('throws when the record cannot be read (the outcome is then unknown)', async () => {
    const down = unavailable(new Error('down'));
    await expect(sameWrite(upstream(down), PLAIN, recordOf(PLAIN), ctx)).rejects.toBe(down);
  });
});

const PARTIAL: RefundWrite = { kind: 'refund', refundId: 'r-1', paymentId: 'p-1', customerId: 'c-1', amount: 30, lines: null };
const WHOLE: RefundWrite = { ...PARTIAL, amount: null };
const SALE = [line('PaymentReward', 'p-1', 80, 8)];

describe('sameWrite: a refund', () => {
  it('is the same refund when the record shows its amount and the BFF recorded the same ask', async () => {
    await expect(sameWrite(upstream([...SALE, line('PartialRefund', 'r-1', 30)]), PARTIAL, recordOf(PARTIAL), ctx)).resolves.toEqual({ kind: 'same' });
  });

  it('a whole refund is the same only when it refunded the rest of the sale', async () => {
    await expect(sameWrite(upstream([...SALE, line('Refund', 'r-1', 80)]), WHOLE, recordOf(WHOLE), ctx)).resolves.toEqual({ kind: 'same' });
    await expect(sameWrite(upstream([...SALE, line('PartialRefund', 'r-0', 30), line('Refund', 'r-1', 50)]), WHOLE, recordOf(WHOLE), ctx)).resolves.toEqual({
      kind: 'same',
    });
    // The upstream shows a partial 30: a whole refund under that id is another write, whatever the BFF recorded.
    await expect(sameWrite(upstream([...SALE, line('PartialRefund', 'r-1', 30)]), WHOLE, recordOf(WHOLE), ctx)).resolves.toMatchObject({ kind: 'other' });
    await expect(sameWrite(upstream([...SALE, line('PartialRefund', 'r-1', 30)]), WHOLE, null, ctx)).resolves.toMatchObject({ kind: 'other' });
  });

  it('is another write when the BFF recorded another ask (an amount, lines, or the whole sale)', async () => {
    const record = upstream([...SALE, line('Refund', 'r-1', 80)]);
    await expect(sameWrite(record, WHOLE, recordOf({ ...WHOLE, amount: 80 }), ctx)).resolves.toMatchObject({ kind: 'other' });
    const lines = refundLinesDigest([{ productId: 'a', quantity: 1, price: 80 }]);
    await expect(sameWrite(record, WHOLE, recordOf({ ...WHOLE, lines }), ctx)).resolves.toMatchObject({ kind: 'other' });
    const byLines = { ...WHOLE, lines };
    await expect(sameWrite(record, byLines, recordOf(byLines), ctx)).resolves.toEqual({ kind: 'same' });
    const otherLines = refundLinesDigest([{ productId: 'b', quantity: 1, price: 80 }]);
    await expect(sameWrite(record, byLines, recordOf({ ...WHOLE, lines: otherLines }), ctx)).resolves.toMatchObject({ kind: 'other' });
  });

  it('is another write when the record shows another amount, or not this refund on this sale (absent)', async () => {
    await expect(sameWrite(upstream([...SALE, line('PartialRefund', 'r-1', 20)]), PARTIAL, recordOf(PARTIAL), ctx)).resolves.toMatchObject({ kind: 'other' });
    await expect(sameWrite(upstream(SALE), PARTIAL, recordOf(PARTIAL), ctx)).resolves.toMatchObject({ kind: 'other', absent: true });
  });

  it('is unknown from an entry of the previous release that cannot show the ask', async () => {
    const record = upstream([...SALE, line('PartialRefund', 'r-1', 30)]);
    await expect(sameWrite(record, PARTIAL, { customerId: 'c-1', paymentId: 'p-1', refundAmount: 30 }, ctx)).resolves.toMatchObject({ kind: 'unknown' });
  });
});

describe('recordDiffers: refused before sending', () => {
  it('refuses a write whose recorded identity differs, never a retry of the same one or an entry that cannot say', () => {
    expect(recordDiffers(WITH_LOCK, recordOf(PLAIN))).not.toBeNull();
    expect(recordDiffers(WHOLE, recordOf(PARTIAL))).not.toBeNull();
    expect(recordDiffers(WHOLE, { customerId: 'c-1', paymentId: 'p-1', refundAmount: 30 })).not.toBeNull();
    expect(recordDiffers(WITH_LOCK, recordOf(WITH_LOCK))).toBeNull();
    expect(recordDiffers(PARTIAL, recordOf(PARTIAL))).toBeNull();
    expect(recordDiffers(PLAIN, { customerId: 'c-1', paymentId: 'p-1', totalPaid: 50 })).toBeNull();
  });

  it('digests lines in any order alike', () => {
    const a = { productId: 'a', quantity: 2, price: 5 };
    const b = { productId: 'b', quantity: 1, price: 3 };
    expect(refundLinesDigest([a, b])).toBe(refundLinesDigest([b, a]));
    expect(refundLinesDigest([a])).not.toBe(refundLinesDigest([{ ...a, quantity: 3 }]));
    expect(refundLinesDigest([])).toBeNull();
  });
});

describe('an entry of this release read by the previous one', () => {
  it("a whole refund's entry leaves the amount out (the previous release compares a stored amount as a number) and says whole by its marker", async () => {
    expect(recordOf(WHOLE)).not.toHaveProperty('refundAmount');
    expect(recordOf(WHOLE)).toMatchObject({ wholeRefund: true });
    expect(recordOf(PARTIAL)).toMatchObject({ refundAmount: 30, wholeRefund: false });
    await expect(sameWrite(upstream([...SALE, line('Refund', 'r-1', 80)]), WHOLE, recordOf(WHOLE), ctx)).resolves.toEqual({ kind: 'same' });
    expect(recordDiffers(PARTIAL, recordOf(WHOLE))).not.toBeNull();
  });
});

describe('lockCarriedWith: a lock naming the payment shows what the earlier write carried', () => {
  const at = (ms: number) => ({ at: ms });
  it('when used, or claimed by the same attempt as the id entry still recording; never after it, nor beside a recorded entry', () => {
    expect(lockCarriedWith(null, { state: 'used' })).toBe(true);
    expect(lockCarriedWith({ state: 'recording', lease: at(10) }, { state: 'paying', lease: at(9) })).toBe(true);
    // The previous release stamped no leases: a lock it claimed beside its own claim.
    expect(lockCarriedWith({ state: 'recording' }, { state: 'paying' })).toBe(true);
    // Claimed by this release after an older entry, or after this entry: this write's own doing.
    expect(lockCarriedWith({ state: 'recording' }, { state: 'paying', lease: at(9) })).toBe(false);
    expect(lockCarriedWith({ state: 'recording', lease: at(10) }, { state: 'paying', lease: at(11) })).toBe(false);
    expect(lockCarriedWith({ state: 'recorded' }, { state: 'paying' })).toBe(false);
    expect(lockCarriedWith({}, { state: 'paying' })).toBe(false);
    expect(lockCarriedWith(null, { state: 'paying' })).toBe(false);
    expect(lockCarriedWith({ state: 'recording' }, { state: 'locked' })).toBe(false);
  });
});

describe("onRecordOfCall: the till path's final verdicts", () => {
  it('another write the record shows, or one no look can match, is final; one not on the record (yet) is not', async () => {
    await expect(onRecordOfCall(Promise.resolve({ kind: 'same' }))).resolves.toBe(true);
    await expect(onRecordOfCall(Promise.resolve({ kind: 'other', why: 'x', absent: true }))).resolves.toBe(false);
    await expect(onRecordOfCall(Promise.resolve({ kind: 'other', why: 'x' }))).rejects.toBeInstanceOf(WriteTaken);
    await expect(onRecordOfCall(Promise.resolve({ kind: 'unknown', why: 'x' }))).rejects.toBeInstanceOf(WriteUnconfirmed);
  });
});
