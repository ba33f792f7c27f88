import { BadRequestError, ConflictError, NotFoundError, ServiceUnavailableError, UnprocessableError, UpstreamError } from '../../../src/platform/errors';
import { judgeFailure, OutboxEntry, type OutboxWork, send } from '../../../src/pos/outbox';
import { queuedWrite, type IdRecordOf } from '../../../src/pos/outbox/deliver';
import { recordOf, WriteNotShown, type WriteRecord } from '../../../src/pos/money/ids/same-write';
import { type LoyaltyClient, markNotDelivered, rateLimited } from '../../../src/upstream';
import { anEntry, paymentWork, T0 } from './harness';

const policy = { maxAttempts: 5, backoffBaseMs: 1000, backoffMaxMs: 8000 };
const entry = (attempts = 0): OutboxEntry => ({
  ...anEntry(paymentWork('ana', 'p1')),
  state: 'delivering',
  attempts,
  nextAttemptAt: 0,
  createdAt: T0,
  updatedAt: T0,
});
// random 0.5: "equal jitter" lands at 3/4 of the step.
const judge = (err: unknown, attempts = 0) => judgeFailure(err, entry(attempts), policy, T0, () => 0.5);

describe('what a failed delivery means', () => {
  it('a duplicate answer that reaches it (no record was read to settle it) is not taken as delivered: a dead letter', () => {
    const dup = new ConflictError('duplicate_transaction', 'dup', { loyaltyCode: 9004 });
    expect(judge(dup)).toEqual({ kind: 'dead', error: { code: 'duplicate_transaction', message: 'dup', status: 409, at: T0 } });
  });

  it.each([
    ['payment_id_taken', new ConflictError('payment_id_taken', 'another sale')],
    ['refund_id_taken', new ConflictError('refund_id_taken', 'another refund')],
  ])("%s (the id is another write's upstream): a dead letter", (_what, err) => {
    expect(judge(err)).toEqual({ kind: 'dead', error: { code: err.code, message: err.message, status: 409, at: T0 } });
  });

  it.each([
    ['no answer / 5xx', new ServiceUnavailableError('upstream_unavailable', 'down')],
    ['timeout', new ServiceUnavailableError('upstream_timeout', 'slow')],
    ['unreadable answer', new UpstreamError('upstream_invalid_response', '?')],
    ['our keys refused (configuration)', new UpstreamError('upstream_auth_failed', 'keys')],
  ])('%s: retried after a backoff, counted as an attempt', (_what, err) => {
    expect(judge(err)).toMatchObject({ kind: 'retry', counted: true, nextAttemptAt: T0 + 750, error: { code: err.code, status: err.status, at: T0 } });
  });

  it('the backoff doubles per attempt up to the cap', () => {
    const down = new ServiceUnavailableError('upstream_unavailable', 'down');
    const waits = [0, 1, 2, 3, 4, 5].map(
      (a) => (judgeFailure(down, entry(a), { ...policy, maxAttempts: 100 }, T0, () => 0.5) as { nextAttemptAt: number }).nextAttemptAt - T0,
    );
    expect(waits).toEqual([750, 1500, 3000, 6000, 6000, 6000]);
  });

  it.each([
    ['the circuit is open', markNotDelivered(new ServiceUnavailableError('upstream_circuit_open', 'open', { retryAfterSeconds: 10 })), 10_000],
    ['over the fleet rate limit (or a 429)', rateLimited(0.5), 750],
    ['the call was aborted', new ServiceUnavailableError('upstream_call_aborted', 'stop'), 750],
  ])('%s: retried, not counted (nothing was sent), Retry-After honoured', (_what, err, wait) => {
    expect(judge(err, 2)).toMatchObject({ kind: 'retry', counted: false, nextAttemptAt: T0 + Math.max(wait, 1500) });
    expect(judge(err, 0)).toMatchObject({ kind: 'retry', counted: false, nextAttemptAt: T0 + wait });
  });

  it.each([
    ['refund of an unknown payment', new NotFoundError('original_transaction_not_found', 'nope', { loyaltyCode: 9005 })],
    ['customer not found', new NotFoundError('customer_not_found', 'nope', { loyaltyCode: 7000 })],
    ['an invalid value', new UnprocessableError('upstream_rejected', 'bad', { loyaltyCode: 3003 })],
    ['a request our client refuses to send', new BadRequestError('validation_failed', 'bad')],
  ])('%s: a dead letter', (_what, err) => {
    expect(judge(err)).toEqual({ kind: 'dead', error: { code: err.code, message: err.message, status: err.status, at: T0 } });
  });

  it('a bug: a dead letter without its text', () => {
    expect(judge(new TypeError('x is undefined'))).toEqual({
      kind: 'dead',
      error: { code: 'internal_error', message: 'The delivery failed unexpectedly', at: T0 },
    });
  });

  it('the last allowed attempt failing: a dead letter saying so; uncounted refusals never kill an entry', () => {
    const down = new ServiceUnavailableError('upstream_unavailable', 'down');
    expect(judge(down, 3)).toMatchObject({ kind: 'retry' });
    expect(judge(down, 4)).toMatchObject({ kind: 'dead', error: { code: 'upstream_unavailable', message: 'down (gave up after 5 attempts)' } });
    expect(judge(rateLimited(1), 400)).toMatchObject({ kind: 'retry', counted: false });
  });
});

describe("send: a duplicate answer is settled by the upstream's record of that id", () => {
  const duplicate = () => new ConflictError('duplicate_transaction', 'A transaction with this id was already recorded', { loyaltyCode: 9004 });
  const refundWork = (amount?: number): OutboxWork => ({
    kind: 'refund',
    request: {
      customerId: 'ana',
      refundTransactionId: 'r1',
      reverseTransactionId: 'p1',
      transactionTime: '2025-03-01T11:00:00.000Z',
      ...(amount !== undefined ? { refundAmount: amount } : {}),
    },
  });
  const queued = (work: OutboxWork, attempts = 0): OutboxEntry => ({
    ...anEntry(work),
    state: 'delivering',
    attempts,
    nextAttemptAt: 0,
    createdAt: T0,
    updatedAt: T0,
  });
  /** A client whose write answers `write` and whose record of the order reads `record`. */
  const upstream = (write: () => Promise<unknown>, record: () => Promise<unknown>) => {
    const read: string[] = [];
    const loyalty = {
      payment: write,
      refund: write,
      orderTransactions: async (orderId: string) => {
        read.push(orderId);
        return record();
      },
      holdLookup: async () => {
        throw new Error('a queued sale uses no hold');
      },
    } as unknown as LoyaltyClient;
    return { loyalty, read };
  };
  /** The id's entry as the till's claim stored it: the queued write's own identity, for its store (`entry` changes it). */
  const claimed =
    (e: OutboxEntry, entry: Partial<WriteRecord & { storeId: string }> | null = {}): IdRecordOf =>
    async () =>
      entry && { storeId: e.storeId, ...recordOf(queuedWrite(e.work as Extract<OutboxWork, { kind: 'payment' | 'refund' }>)), ...entry };
  const deliver = (loyalty: LoyaltyClient, e: OutboxEntry, entry?: Partial<WriteRecord & { storeId: string }> | null) => send(loyalty, e, claimed(e, entry));
  const rejectWith = (err: unknown) => async () => {
    throw err;
  };
  const thrown = (p: Promise<unknown>) =>
    p.then(
      () => {
        throw new Error('expected send() to fail');
      },
      (e: unknown) => e as ConflictError,
    );

  it('a payment answered: what it earned and redeemed, no record read', async () => {
    const { loyalty, read } = upstream(
      async () => ({ customerId: 'ana', rewardedPoints: 10, redeemedPoints: 0, paymentDetails: [] }),
      rejectWith(new Error('not asked')),
    );
    await expect(deliver(loyalty, queued(paymentWork('ana', 'p1', 10)))).resolves.toEqual({ pointsEarned: 10, pointsRedeemed: 0 });
    expect(read).toEqual([]);
  });

  it('a payment duplicate whose record is this payment (same total): delivered as already recorded', async () => {
    const { loyalty, read } = upstream(rejectWith(duplicate()), async () => ({
      transactions: [{ transactionType: 'PaymentReward', transactionId: 'p1', amount: 10 }],
    }));
    await expect(deliver(loyalty, queued(paymentWork('ana', 'p1', 10)))).resolves.toEqual({ alreadyRecorded: true });
    expect(read).toEqual(['p1']);
  });

  it('a payment duplicate whose record is another sale (another total): payment_id_taken, a dead letter', async () => {
    const { loyalty } = upstream(rejectWith(duplicate()), async () => ({
      transactions: [{ transactionType: 'PaymentReward', transactionId: 'p1', amount: 99 }],
    }));
    const e = queued(paymentWork('ana', 'p1', 10));
    const err = await thrown(deliver(loyalty, e));
    expect(err).toBeInstanceOf(ConflictError);
    expect(err.code).toBe('payment_id_taken');
    expect(judgeFailure(err, e, policy, T0, () => 0.5)).toMatchObject({ kind: 'dead', error: { code: 'payment_id_taken' } });
  });

  it('a payment duplicate with nothing on record under that id (404): payment_id_taken', async () => {
    const { loyalty } = upstream(rejectWith(duplicate()), rejectWith(new NotFoundError('transaction_not_found', 'nope', { loyaltyCode: 9002 })));
    expect((await thrown(deliver(loyalty, queued(paymentWork('ana', 'p1', 10))))).code).toBe('payment_id_taken');
  });

  it("a payment duplicate whose record cannot be read: the read's error, retried", async () => {
    const down = new ServiceUnavailableError('upstream_unavailable', 'down');
    const { loyalty } = upstream(rejectWith(duplicate()), rejectWith(down));
    const e = queued(paymentWork('ana', 'p1', 10));
    const err = await thrown(deliver(loyalty, e));
    expect(err).toBe(down);
    expect(judgeFailure(err, e, policy, T0, () => 0.5)).toMatchObject({ kind: 'retry', counted: true, error: { code: 'upstream_unavailable' } });
  });

  it('any other failure of the write is thrown as it is, without reading the record', async () => {
    const refused = new NotFoundError('customer_not_found', 'nope', { loyaltyCode: 7000 });
    const { loyalty, read } = upstream(rejectWith(refused), rejectWith(new Error('not asked')));
    expect(await thrown(deliver(loyalty, queued(paymentWork('ana', 'p1', 10))))).toBe(refused);
    expect(read).toEqual([]);
  });

  it('a refund answered: what it refunded and reversed', async () => {
    const { loyalty } = upstream(
      async () => ({ gameballTransactionId: 'g-1', refundTransactionId: 'r1', refundAmount: 5, refundEquivalentPoints: 50 }),
      rejectWith(new Error('not asked')),
    );
    await expect(deliver(loyalty, queued(refundWork(5)))).resolves.toEqual({ amountRefunded: 5, pointsReversed: 50, loyaltyTransactionId: 'g-1' });
  });

  it('a refund duplicate whose record is this refund of that sale (same amount): delivered as already recorded', async () => {
    const { loyalty, read } = upstream(rejectWith(duplicate()), async () => ({
      transactions: [
        { transactionType: 'PaymentReward', transactionId: 'p1', amount: 10 },
        { transactionType: 'PartialRefund', transactionId: 'r1', amount: 5 },
      ],
    }));
    await expect(deliver(loyalty, queued(refundWork(5)))).resolves.toEqual({ alreadyRecorded: true });
    expect(read).toEqual(['p1']);
  });

  it.each([
    ['another amount', [{ transactionType: 'PartialRefund', transactionId: 'r1', amount: 7 }]],
    ['no refund under that id on that sale', [{ transactionType: 'PartialRefund', transactionId: 'r-other', amount: 5 }]],
  ])('a refund duplicate whose record shows %s: refund_id_taken, a dead letter', async (_what, transactions) => {
    const { loyalty } = upstream(rejectWith(duplicate()), async () => ({ transactions }));
    const e = queued(refundWork(5));
    const err = await thrown(deliver(loyalty, e));
    expect(err.code).toBe('refund_id_taken');
    expect(judgeFailure(err, e, policy, T0, () => 0.5)).toMatchObject({ kind: 'dead' });
  });

  it("a refund duplicate whose record cannot be read: the read's error, retried", async () => {
    const slow = new ServiceUnavailableError('upstream_timeout', 'slow');
    const { loyalty } = upstream(rejectWith(duplicate()), rejectWith(slow));
    expect(await thrown(deliver(loyalty, queued(refundWork(5))))).toBe(slow);
  });

  describe("the BFF's record it compares with is the id's stored entry, not the queued write itself", () => {
    const shows5 = async () => ({
      transactions: [
        { transactionType: 'PaymentReward', transactionId: 'p1', amount: 10 },
        { transactionType: 'PartialRefund', transactionId: 'r1', amount: 5 },
      ],
    });
    it.each([
      ['another customer', { customerId: 'bo' }],
      ['another sale', { paymentId: 'p9' }],
      ['other lines', { refundLines: 'digest-of-other-lines' }],
    ])('an entry of %s under the refund id: refund_id_taken, though the upstream shows the same amount', async (_what, entry) => {
      const { loyalty } = upstream(rejectWith(duplicate()), shows5);
      expect((await thrown(deliver(loyalty, queued(refundWork(5)), entry))).code).toBe('refund_id_taken');
    });

    it.each([
      ['no entry (Redis lost it)', null],
      ["another store's entry", { storeId: 'store-other' }],
    ])('%s: never delivered from it, never taken (the outcome cannot be shown)', async (_what, entry) => {
      const { loyalty } = upstream(rejectWith(duplicate()), shows5);
      expect(await thrown(deliver(loyalty, queued(refundWork(5)), entry))).toBeInstanceOf(WriteNotShown);
    });
  });
});
