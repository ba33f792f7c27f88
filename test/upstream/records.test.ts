import { NotFoundError, ServiceUnavailableError, UnprocessableError } from '../../src/platform/errors';
import { paymentOnRecord, refundOnRecord, type LoyaltyClient } from '../../src/upstream';
import { HoldLookupAnswer } from '../../src/upstream/answers';
import { timedOut, unavailable } from '../../src/upstream/errors';

type Transaction = { transactionType: string; transactionId?: string; amount?: number; equivalentPoints?: number };
type Reader = Pick<LoyaltyClient, 'orderTransactions' | 'holdLookup'>;

/**
 * Fakes of the two reads the records are made of. The hold is given as the
 * upstream would send it and read through the client's own answer reader, so
 * older state names (`redeemed`, `held`) are read as the client reads them.
 */
function upstream(transactions: Transaction[] | (() => Promise<never>), hold: Record<string, unknown> | (() => Promise<never>) = {}) {
  const asked = { orders: [] as string[], holds: [] as string[], ctx: [] as unknown[] };
  const reader: Reader = {
    orderTransactions: async (orderId, ctx) => {
      asked.orders.push(orderId);
      asked.ctx.push(ctx);
      if (typeof transactions === 'function') return transactions();
      return { transactions: transactions as never };
    },
    holdLookup: async (reference) => {
      asked.holds.push(reference);
      if (typeof hold === 'function') return hold();
      return HoldLookupAnswer.parse({ dateToExpire: '2030-01-01T00:10:00Z', ...hold });
    },
  };
  return { reader, asked };
}

const fails = (err: unknown) => async (): Promise<never> => {
  throw err;
};

const PAID = { paymentId: 'p-1', customerId: 'c-1', totalPaid: 25 };
const HOLD = { reference: 'h-1', points: 250 };
const payment = (amount?: number, extra: Partial<Transaction> = {}): Transaction => ({
  transactionType: 'PaymentReward',
  transactionId: 'p-1',
  amount,
  ...extra,
});
const redemption = (equivalentPoints?: number): Transaction => ({ transactionType: 'Redemption', transactionId: 'p-1', amount: 2.5, equivalentPoints });

describe('paymentOnRecord: is the payment id taken by this very payment?', () => {
  it("the same total under that id: true, read from that order's transactions with the call context", async () => {
    const { reader, asked } = upstream([payment(25)]);
    await expect(paymentOnRecord(reader, PAID, { requestId: 'rq-9' })).resolves.toBe(true);
    expect(asked.orders).toEqual(['p-1']);
    expect(asked.ctx).toEqual([{ requestId: 'rq-9' }]);
    expect(asked.holds).toEqual([]);
  });

  it.each([
    ['a Payment line', [{ transactionType: 'Payment', transactionId: 'p-1', amount: 25 }]],
    ['a line without its own id', [{ transactionType: 'PaymentReward', amount: 25 }]],
    ['a total within a cent', [payment(25.004)]],
    ['after other kinds of line', [{ transactionType: 'Refund', transactionId: 'r-1', amount: 5 }, payment(25)]],
  ] as [string, Transaction[]][])('%s: true', async (_what, transactions) => {
    await expect(paymentOnRecord(upstream(transactions).reader, PAID)).resolves.toBe(true);
  });

  it.each([
    ['another total (another sale under that id)', [payment(40)]],
    ['a total a cent off', [payment(25.01)]],
    ['a payment without an amount', [payment(undefined)]],
    ['a payment under another id', [payment(25, { transactionId: 'p-2' })]],
    ['no payment, only a refund', [{ transactionType: 'Refund', transactionId: 'p-1', amount: 25 }]],
    ['nothing at all', []],
  ] as [string, Transaction[]][])('%s: false', async (_what, transactions) => {
    await expect(paymentOnRecord(upstream(transactions).reader, PAID)).resolves.toBe(false);
  });

  it.each([
    ['transaction_not_found', new NotFoundError('transaction_not_found', 'no', { loyaltyCode: 9002 })],
    ['original_transaction_not_found', new NotFoundError('original_transaction_not_found', 'no', { loyaltyCode: 9005 })],
    ['upstream_not_found (404)', new NotFoundError('upstream_not_found', 'no', { loyaltyCode: 4004 })],
  ])('nothing on record under that id (%s): false', async (_what, err) => {
    await expect(paymentOnRecord(upstream(fails(err)).reader, PAID)).resolves.toBe(false);
  });

  it.each([
    ['a 5xx', unavailable()],
    ['a timeout', timedOut(100)],
    ['another refusal', new UnprocessableError('upstream_rejected', 'no', { loyaltyCode: 3003 })],
  ])('a record that cannot be read (%s): throws that error', async (_what, err) => {
    await expect(paymentOnRecord(upstream(fails(err)).reader, PAID)).rejects.toBe(err);
  });

  it('a total that is not a number matches nothing on record', async () => {
    await expect(paymentOnRecord(upstream([payment(25)]).reader, { ...PAID, totalPaid: Number.NaN })).resolves.toBe(false);
  });

  describe('a payment that used a hold', () => {
    const withHold = { ...PAID, hold: HOLD };

    it('the same total, redeemed under that id, the hold used by this customer: true', async () => {
      const { reader, asked } = upstream([payment(25), redemption(250)], { state: 'Used', customerId: 'c-1' });
      await expect(paymentOnRecord(reader, withHold)).resolves.toBe(true);
      expect(asked.holds).toEqual(['h-1']);
    });

    it('the hold state `redeemed` of an older upstream is read as used: true', async () => {
      await expect(paymentOnRecord(upstream([payment(25), redemption(250)], { state: 'redeemed', customerId: 'c-1' }).reader, withHold)).resolves.toBe(true);
    });

    it("a hold that names another profile (an account that merges a customer's channels answers the merged one): true", async () => {
      await expect(paymentOnRecord(upstream([payment(25), redemption(250)], { state: 'used', customerId: 'web-c-1' }).reader, withHold)).resolves.toBe(true);
    });

    it('a hold that does not say whose it is: true', async () => {
      await expect(paymentOnRecord(upstream([payment(25), redemption(250)], { state: 'used' }).reader, withHold)).resolves.toBe(true);
    });

    it('points the hold did not say, or a redemption that does not say its points: not held against it', async () => {
      await expect(
        paymentOnRecord(upstream([payment(25), redemption(999)], { state: 'used', customerId: 'c-1' }).reader, { ...PAID, hold: { reference: 'h-1' } }),
      ).resolves.toBe(true);
      await expect(paymentOnRecord(upstream([payment(25), redemption(undefined)], { state: 'used', customerId: 'c-1' }).reader, withHold)).resolves.toBe(true);
    });

    it.each([
      ['the hold still active', { state: 'Active', customerId: 'c-1' }],
      ["the hold still `held` (an older upstream's active)", { state: 'held', customerId: 'c-1' }],
      ['the hold expired', { state: 'Expired', customerId: 'c-1' }],
      ['the hold released', { state: 'released', customerId: 'c-1' }],
      ['a hold state nobody knows', { state: 'frozen', customerId: 'c-1' }],
      ['a hold without a state', { customerId: 'c-1' }],
    ])('%s: false', async (_what, hold) => {
      await expect(paymentOnRecord(upstream([payment(25), redemption(250)], hold).reader, withHold)).resolves.toBe(false);
    });

    it('no Redemption transaction under that id: false, and the hold is not looked up', async () => {
      const { reader, asked } = upstream([payment(25)], { state: 'used', customerId: 'c-1' });
      await expect(paymentOnRecord(reader, withHold)).resolves.toBe(false);
      expect(asked.holds).toEqual([]);
    });

    it('a redemption of other points: false', async () => {
      await expect(paymentOnRecord(upstream([payment(25), redemption(100)], { state: 'used', customerId: 'c-1' }).reader, withHold)).resolves.toBe(false);
    });

    it('another total: false, whatever the hold says', async () => {
      const { reader, asked } = upstream([payment(30), redemption(250)], { state: 'used', customerId: 'c-1' });
      await expect(paymentOnRecord(reader, withHold)).resolves.toBe(false);
      expect(asked.holds).toEqual([]);
    });

    it('a hold that cannot be read: throws that error', async () => {
      const down = new ServiceUnavailableError('upstream_unavailable', 'down');
      await expect(paymentOnRecord(upstream([payment(25), redemption(250)], fails(down)).reader, withHold)).rejects.toBe(down);
    });
  });
});

describe('refundOnRecord: is the refund id taken by a refund of this very payment?', () => {
  const REFUND = { paymentId: 'p-1', refundId: 'r-1', amount: 5 };
  const refund = (type: string, amount?: number, transactionId = 'r-1'): Transaction => ({ transactionType: type, transactionId, amount });

  it("a refund under that id of the same amount: true, read from the payment's transactions", async () => {
    const { reader, asked } = upstream([payment(25), refund('PartialRefund', 5)]);
    await expect(refundOnRecord(reader, REFUND, { requestId: 'rq-3' })).resolves.toBe(true);
    expect(asked.orders).toEqual(['p-1']);
    expect(asked.ctx).toEqual([{ requestId: 'rq-3' }]);
  });

  it.each([
    ['a whole refund (no amount asked)', { paymentId: 'p-1', refundId: 'r-1' }, [refund('Refund', 25)]],
    ['an amount within a cent', REFUND, [refund('PartialRefund', 5.004)]],
    ['a Refund line', REFUND, [refund('Refund', 5)]],
  ] as [string, typeof REFUND, Transaction[]][])('%s: true', async (_what, asked, transactions) => {
    await expect(refundOnRecord(upstream(transactions).reader, asked)).resolves.toBe(true);
  });

  it.each([
    ['another amount', [refund('PartialRefund', 7)]],
    ['a refund under another id', [refund('PartialRefund', 5, 'r-2')]],
    ['a refund line without an id', [{ transactionType: 'PartialRefund', amount: 5 }]],
    ['only the payment', [payment(25)]],
    ['a payment line under the refund id', [{ transactionType: 'PaymentReward', transactionId: 'r-1', amount: 5 }]],
    ['nothing at all', []],
  ] as [string, Transaction[]][])('%s: false', async (_what, transactions) => {
    await expect(refundOnRecord(upstream(transactions).reader, REFUND)).resolves.toBe(false);
  });

  it('nothing on record for that payment (404): false', async () => {
    await expect(refundOnRecord(upstream(fails(new NotFoundError('upstream_not_found', 'no', { loyaltyCode: 4004 }))).reader, REFUND)).resolves.toBe(false);
    await expect(refundOnRecord(upstream(fails(new NotFoundError('transaction_not_found', 'no', { loyaltyCode: 9002 }))).reader, REFUND)).resolves.toBe(false);
  });

  it('a record that cannot be read (5xx): throws that error', async () => {
    const down = unavailable();
    await expect(refundOnRecord(upstream(fails(down)).reader, REFUND)).rejects.toBe(down);
  });
});
