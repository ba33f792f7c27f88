import { AppError, BadRequestError, ConflictError, NotFoundError, ServiceUnavailableError, UnprocessableError } from '../../src/platform/errors';
import { type CallPolicy, failureOf, markMayHaveLanded, markNotDelivered, rateLimited, writeOutcome } from '../../src/upstream';
import { invalidResponse, timedOut, unavailable } from '../../src/upstream/errors';
import { aborted, withRetries, type RetryRun } from '../../src/upstream/retry';
import { bodies, paymentRequest, reads } from './fixtures';
import { drop, json, loyaltyError, makeClient, stall, STALL_TIMEOUT_MS, useTestUpstream } from './test-upstream';

const duplicate = () => new ConflictError('duplicate_transaction', 'A transaction with this id was already recorded', { loyaltyCode: 9004 });
const circuitOpen = () =>
  markNotDelivered(new ServiceUnavailableError('upstream_circuit_open', 'The loyalty service is unavailable', { retryAfterSeconds: 10 }));
const neverConnected = () => markNotDelivered(unavailable(new Error('ECONNREFUSED')));

describe('failureOf: one failed write read on its own', () => {
  it.each([
    ['a 4xx refusal of the upstream', new UnprocessableError('insufficient_points', 'no', { loyaltyCode: 9008 })],
    ['a not-found', new NotFoundError('customer_not_found', 'no', { loyaltyCode: 7000 })],
    ['our own refusal before sending', new BadRequestError('validation_failed', 'bad')],
    ['a 429 (never applied)', rateLimited(1)],
    ['an open circuit (nothing sent)', circuitOpen()],
    ['a connection never made', neverConnected()],
  ])('%s: refused', (_what, err) => {
    expect(failureOf(err)).toBe('refused');
  });

  it.each([
    ['a timeout', timedOut(100)],
    ['a 5xx or a dropped connection', unavailable()],
    ['an answer that could not be read', invalidResponse()],
    ['a call aborted by its caller', aborted()],
    ['an error that is not ours (a bug)', new TypeError('x is undefined')],
    ['something thrown that is not an error', 'boom'],
    ['nothing at all', undefined],
  ])('%s: unknown', (_what, err) => {
    expect(failureOf(err)).toBe('unknown');
  });

  it("a duplicate: only the upstream's record can settle it", () => {
    expect(failureOf(duplicate())).toBe('duplicate');
  });
});

describe('markMayHaveLanded: an earlier attempt may have been applied', () => {
  it.each([
    ['a 4xx refusal', new UnprocessableError('insufficient_points', 'no', { loyaltyCode: 9008 })],
    ['a 429', rateLimited(60)],
    ['an open circuit', circuitOpen()],
    ['a connection never made', neverConnected()],
  ])('turns %s into unknown', (_what, err) => {
    expect(failureOf(err)).toBe('refused');
    expect(markMayHaveLanded(err)).toBe(err);
    expect(failureOf(err)).toBe('unknown');
  });

  it('leaves a duplicate a duplicate (the record decides, whatever attempt it came from)', () => {
    const err = markMayHaveLanded(duplicate());
    expect(failureOf(err)).toBe('duplicate');
  });

  it('marks only the error it is given', () => {
    const [marked, other] = [rateLimited(1), rateLimited(1)];
    markMayHaveLanded(marked);
    expect(failureOf(marked)).toBe('unknown');
    expect(failureOf(other)).toBe('refused');
  });

  it('passes a value that is not an object through untouched', () => {
    expect(markMayHaveLanded('boom')).toBe('boom');
    expect(markMayHaveLanded(undefined)).toBeUndefined();
  });
});

describe('writeOutcome: what became of one write', () => {
  const notAsked = jest.fn(async () => {
    throw new Error('the record is asked only after a duplicate');
  });
  beforeEach(() => notAsked.mockClear());

  it('an answer: applied, with its body; the record not asked', async () => {
    await expect(writeOutcome(async () => ({ points: 5 }), notAsked)).resolves.toEqual({ kind: 'applied', body: { points: 5 } });
    expect(notAsked).not.toHaveBeenCalled();
  });

  it('a refusal: refused, with that error; the record not asked', async () => {
    const err = new UnprocessableError('insufficient_points', 'no');
    await expect(writeOutcome(() => Promise.reject(err), notAsked)).resolves.toEqual({ kind: 'refused', error: err });
    expect(notAsked).not.toHaveBeenCalled();
  });

  it('a timeout: unknown, with that error; the record not asked', async () => {
    const err = timedOut(100);
    const outcome = await writeOutcome(() => Promise.reject(err), notAsked);
    expect(outcome).toEqual({ kind: 'unknown', error: err });
    expect(outcome.kind === 'unknown' && outcome.error).toBe(err);
    expect(notAsked).not.toHaveBeenCalled();
  });

  it('a refusal after an attempt that may have landed: unknown, not refused', async () => {
    const err = markMayHaveLanded(rateLimited(60));
    await expect(writeOutcome(() => Promise.reject(err), notAsked)).resolves.toEqual({ kind: 'unknown', error: err });
  });

  it('a duplicate the record shows is this write: applied, without a body', async () => {
    const dup = duplicate();
    const onRecord = jest.fn(async () => true);
    await expect(writeOutcome(() => Promise.reject(dup), onRecord)).resolves.toEqual({ kind: 'applied', body: undefined });
    expect(onRecord).toHaveBeenCalledWith(dup);
  });

  it('a duplicate the record shows is another write: refused, with the duplicate', async () => {
    const dup = duplicate();
    await expect(
      writeOutcome(
        () => Promise.reject(dup),
        async () => false,
      ),
    ).resolves.toEqual({ kind: 'refused', error: dup });
  });

  it('a duplicate after an attempt that may have landed still asks the record (and is refused when it is another write)', async () => {
    const dup = markMayHaveLanded(duplicate());
    const onRecord = jest.fn(async () => false);
    await expect(writeOutcome(() => Promise.reject(dup), onRecord)).resolves.toEqual({ kind: 'refused', error: dup });
    expect(onRecord).toHaveBeenCalledTimes(1);
  });

  it("a duplicate whose record cannot be read: unknown, with the read's error", async () => {
    const readErr = unavailable();
    await expect(
      writeOutcome(
        () => Promise.reject(duplicate()),
        () => Promise.reject(readErr),
      ),
    ).resolves.toEqual({ kind: 'unknown', error: readErr });
  });
});

describe('the retry loop keeps the worst of its attempts', () => {
  const tuning = { retries: 2, baseDelayMs: 1, maxDelayMs: 1, maxRetryAfterSeconds: 5 };
  const run = (operation: RetryRun['operation'] = 'payment'): RetryRun => ({ operation, tuning, sleep: async () => undefined, random: () => 0.5 });
  /** Attempts that fail with `errors` in turn, then answer `{ ok: true }`. */
  const attempts = (...errors: unknown[]) => {
    let n = 0;
    const attempt = async () => {
      const err = errors[n++];
      if (err !== undefined) throw err;
      return { ok: true };
    };
    return { attempt, sent: () => n };
  };
  const outcomeOf = (...errors: unknown[]) => {
    const a = attempts(...errors);
    return writeOutcome(
      () => withRetries(run(), a.attempt),
      async () => false,
    ).then((o) => ({ ...o, sent: a.sent() }));
  };

  it('a timeout, then a refusal by an open circuit: unknown, not refused', async () => {
    const open = circuitOpen();
    await expect(outcomeOf(timedOut(100), open)).resolves.toEqual({ kind: 'unknown', error: open, sent: 2 });
    expect(failureOf(open)).toBe('unknown');
  });

  it('a timeout, then a 429 not waited for: unknown, not refused', async () => {
    const busy = rateLimited(60);
    await expect(outcomeOf(timedOut(100), busy)).resolves.toEqual({ kind: 'unknown', error: busy, sent: 2 });
  });

  it('a 5xx, then a 4xx refusal: unknown, not refused', async () => {
    const refused = new UnprocessableError('insufficient_points', 'no');
    await expect(outcomeOf(unavailable(), refused)).resolves.toMatchObject({ kind: 'unknown', error: refused });
  });

  it('a timeout, then a 429, then an open circuit: unknown (the first attempt is not forgotten)', async () => {
    const open = circuitOpen();
    await expect(outcomeOf(timedOut(100), rateLimited(0), open)).resolves.toEqual({ kind: 'unknown', error: open, sent: 3 });
  });

  it('a timeout, then a duplicate: the record decides (a duplicate is never made unknown)', async () => {
    const dup = duplicate();
    await expect(outcomeOf(timedOut(100), dup)).resolves.toEqual({ kind: 'refused', error: dup, sent: 2 });
    expect(failureOf(dup)).toBe('duplicate');
  });

  it('a 429, then an open circuit: refused (no attempt was sent)', async () => {
    const open = circuitOpen();
    await expect(outcomeOf(rateLimited(0), open)).resolves.toEqual({ kind: 'refused', error: open, sent: 2 });
  });

  it('a connection never made, then a 4xx refusal: refused', async () => {
    const refused = new UnprocessableError('insufficient_points', 'no');
    await expect(outcomeOf(neverConnected(), refused)).resolves.toEqual({ kind: 'refused', error: refused, sent: 2 });
  });

  it('an open circuit on the first attempt: refused, not retried', async () => {
    const open = circuitOpen();
    await expect(outcomeOf(open)).resolves.toEqual({ kind: 'refused', error: open, sent: 1 });
  });

  it('a timeout, then an answer: applied', async () => {
    await expect(outcomeOf(timedOut(100))).resolves.toEqual({ kind: 'applied', body: { ok: true }, sent: 2 });
  });

  it('a timeout, then the caller giving up during the wait: unknown', async () => {
    const ac = new AbortController();
    const a = attempts(timedOut(100));
    const wait: RetryRun['sleep'] = async () => {
      ac.abort();
      throw aborted();
    };
    const outcome = await writeOutcome(
      () => withRetries({ ...run(), signal: ac.signal, sleep: wait }, a.attempt),
      async () => false,
    );
    expect(outcome).toMatchObject({ kind: 'unknown', error: { code: 'upstream_call_aborted' } });
    expect(a.sent()).toBe(1);
  });

  it('a write that is not sent again (a hold) keeps its own reading: a timeout is unknown, sent once', async () => {
    const a = attempts(timedOut(100));
    const err = await withRetries(run('hold'), a.attempt).catch((e: unknown) => e);
    expect((err as AppError).code).toBe('upstream_timeout');
    expect(failureOf(err)).toBe('unknown');
    expect(a.sent()).toBe(1);
  });
});

describe('the client: a payment whose first attempt may have landed', () => {
  const upstream = useTestUpstream();

  it('dropped, then refused by an open circuit: the error reads as unknown, not refused', async () => {
    let calls = 0;
    const breaker: CallPolicy = async (_info, next) => {
      calls += 1;
      if (calls > 1) throw circuitOpen();
      return next();
    };
    const { client } = makeClient(upstream, { policies: [breaker] });
    upstream.script(drop, json(200, bodies.payment));
    const outcome = await writeOutcome(
      () => client.payment(paymentRequest),
      async () => false,
    );
    client.close();
    expect(outcome).toMatchObject({ kind: 'unknown', error: { code: 'upstream_circuit_open' } });
    expect(upstream.seen).toHaveLength(1);
  });

  it('timed out, then a 429 not waited for: unknown', async () => {
    const { client } = makeClient(upstream, { timeoutMs: STALL_TIMEOUT_MS });
    upstream.script(stall, loyaltyError(429, 429, 'RateLimited', 'slow', { 'Retry-After': '60' }));
    const outcome = await writeOutcome(
      () => client.payment(paymentRequest),
      async () => false,
    );
    client.close();
    expect(outcome).toMatchObject({ kind: 'unknown', error: { code: 'upstream_busy' } });
    expect(upstream.seen).toHaveLength(2);
  });

  it('dropped, then a duplicate the record shows is this payment: applied, without a body', async () => {
    const { client } = makeClient(upstream);
    upstream.script(drop, loyaltyError(422, 9004, 'DuplicateTransaction', 'duplicate'));
    const onRecord = jest.fn(async () => true);
    await expect(writeOutcome(() => client.payment(paymentRequest), onRecord)).resolves.toEqual({ kind: 'applied', body: undefined });
    client.close();
    expect(onRecord).toHaveBeenCalledWith(expect.objectContaining({ code: 'duplicate_transaction' }));
  });

  it('answered on the first attempt: applied with the plain answer', async () => {
    const { client } = makeClient(upstream);
    upstream.script(json(200, bodies.payment));
    await expect(
      writeOutcome(
        () => client.payment(paymentRequest),
        async () => false,
      ),
    ).resolves.toEqual({ kind: 'applied', body: reads.payment });
    client.close();
  });
});
