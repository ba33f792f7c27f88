import request from 'supertest';
import { PUBLISHED_LIMITS } from '../../src/contract';
import { AccountSettingsInput, createSandbox, loadSandboxAccounts, startSandbox, StartedSandbox } from '../../src/sandbox';
import { API, API_KEY, expectLoyaltyError, SECRET, START, testAccount } from './helpers';

const T = '2025-03-01T10:00:00Z';
const KEYS = { apikey: API_KEY, secretkey: SECRET };
const OTHER = { apikey: 'other_api_key_2', secretkey: 'other_secret_key_2' };
/** The account as configured without a `rateLimits` field: the published figures, enforced. */
const PUBLISHED: Partial<AccountSettingsInput> = { rateLimits: undefined };

/** The published limits over real HTTP, on a frozen sandbox clock that only the admin API moves. */
describe('sandbox rate limits', () => {
  let sbx: StartedSandbox;
  let http: ReturnType<typeof request>;

  beforeAll(async () => {
    const other = testAccount({ ...PUBLISHED, name: 'Other', apiKey: OTHER.apikey, secretKey: OTHER.secretkey });
    sbx = await startSandbox({ accounts: [testAccount(PUBLISHED), other], startTime: START, frozenClock: true, port: 0 });
    http = request(sbx.url);
  });
  afterAll(() => sbx.close());

  beforeEach(async () => {
    await http.post('/_sandbox/reset').set(KEYS).expect(200);
    for (const keys of [KEYS, OTHER]) await http.post('/_sandbox/customers').set(keys).send({ customerId: 'c1', points: 100_000 }).expect(201);
  });

  const advance = (ms: number) => http.post('/_sandbox/clock/advance').set(KEYS).send({ ms }).expect(200);
  const hold = (keys = KEYS) => http.post(`${API}/transactions/hold`).set(keys).send({ customerId: 'c1', transactionTime: T, pointsToHold: 1 });
  const lookup = (ref: string) => http.get(`${API}/transactions/hold/${ref}`).set(KEYS);
  const balance = (keys = KEYS) => http.get(`${API}/customers/c1/balance`).set(keys);
  const setLimits = (rateLimits: unknown) => http.put(`/_sandbox/accounts/${API_KEY}`).set(KEYS).send({ rateLimits });
  /** Sends `n` requests one after another and expects each to pass. */
  async function pass(n: number, send: () => request.Test): Promise<request.Response[]> {
    const out: request.Response[] = [];
    for (let i = 0; i < n; i++) {
      const res = await send();
      if (res.status !== 200) throw new Error(`request ${i + 1} of ${n}: ${res.status} ${JSON.stringify(res.body)}`);
      out.push(res);
    }
    return out;
  }
  function refused(res: request.Response, retryAfter: number) {
    const err = expectLoyaltyError(res, 429, 429);
    expect(err.reason).toBe('RateLimited');
    expect(res.headers['retry-after']).toBe(String(retryAfter));
    return err;
  }

  it('is on at the published figures for an account that does not set it (as the bundled accounts file)', async () => {
    const shown = await http.get(`/_sandbox/accounts/${API_KEY}`).set(KEYS).expect(200);
    expect(shown.body.rateLimits).toEqual({ enforced: true, multiplier: 1, buckets: {} });
    for (const account of loadSandboxAccounts('config/sandbox-accounts.json')) {
      expect(account.rateLimits).toEqual({ enforced: true, multiplier: 1, buckets: {} });
    }
  });

  it('refuses the 31st transaction write in one second with 429, Retry-After and the published body; the refused hold holds nothing', async () => {
    expect(PUBLISHED_LIMITS.transactionsWrite.rate).toBe(30);
    await pass(30, () => hold());
    const before = (await balance().expect(200)).body;
    const err = refused(await hold(), 1);
    expect(err.message).toContain('Transactions POST allows 30 per second and 360 per 30 s');
    const after = (await balance().expect(200)).body;
    expect(after).toEqual(before);
    expect(after.availablePointsBalance).toBe(100_000 - 30);

    // The second is up when the first request leaves it, not before.
    await advance(999);
    refused(await hold(), 1);
    await advance(1);
    await pass(30, () => hold());
    refused(await hold(), 1);
  });

  it('counts any one second, not seconds on the clock face (a sliding window)', async () => {
    await pass(15, () => hold());
    await advance(600);
    await pass(15, () => hold());
    await advance(600);
    // 1.2 s in: the first 15 have left the last second, the next 15 have not.
    await pass(15, () => hold());
    refused(await hold(), 1);
  });

  it('refuses the 361st transaction read in 30 s, with Retry-After until the oldest leaves the window; reads and writes count apart', async () => {
    const ref = (await hold().expect(200)).body.holdReference as string;
    for (let second = 0; second < 12; second++) {
      await pass(30, () => lookup(ref));
      await advance(1000);
    }
    // 12.5 s in: 360 reads in the window, none in the last second; the oldest (at 0 s) leaves at 30 s.
    await advance(500);
    const err = refused(await lookup(ref), 18);
    expect(err.message).toContain('Transactions GET');
    // Writes and customer reads have their own buckets.
    await hold().expect(200);
    await balance().expect(200);
    await advance(17_000);
    refused(await lookup(ref), 1);
    await advance(499);
    refused(await lookup(ref), 1);
    await advance(1);
    await pass(30, () => lookup(ref));
  });

  it('counts each account apart', async () => {
    await pass(30, () => hold());
    refused(await hold(), 1);
    await pass(30, () => hold(OTHER));
    refused(await hold(OTHER), 1);
    expect((await balance(OTHER).expect(200)).body.availablePointsBalance).toBe(100_000 - 30);
  });

  it('does not count a refused request, and a refused payment is not recorded (the same id passes later)', async () => {
    await pass(30, () => hold());
    await advance(500);
    const pay = () => http.post(`${API}/payments`).set(KEYS).send({ customerId: 'c1', paymentId: 'pay-1', paymentDate: T, totalPaid: 50 });
    for (let i = 0; i < 50; i++) refused(await pay(), 1);
    // 1 s in: had the refusals at 0.5 s counted, this second would still be full.
    await advance(500);
    await pay().expect(200);
    await pass(29, () => hold());
  });

  it('Track Order, order previews and order-transaction reads share the orders bucket (Orders (Tracking), 30/s); the refused order is not recorded', async () => {
    expect(PUBLISHED_LIMITS.orders).toMatchObject({ rate: 30, quota: 360 });
    const track = (orderId: string) => http.post(`${API}/orders`).set(KEYS).send({ customerId: 'c1', orderId, orderDate: T, totalPaid: 10 });
    const preview = () => http.post(`${API}/orders/reward-preview`).set({ apikey: KEYS.apikey }).send({ customerId: 'c1', totalPaid: 10 });
    let n = 0;
    await pass(10, () => track(`o-${n++}`));
    await pass(10, () => preview());
    await pass(10, () => http.get(`${API}/orders/o-0/transactions`).set(KEYS));
    const err = refused(await track('o-late'), 1);
    expect(err.message).toContain('Orders (tracking) allows 30 per second and 360 per 30 s');
    refused(await preview(), 1);
    refused(await http.get(`${API}/orders/o-0/transactions`).set(KEYS), 1);
    // Transaction writes and customer reads have their own buckets.
    await hold().expect(200);
    await balance().expect(200);
    await advance(1000);
    await track('o-late').expect(200);
    expect((await balance().expect(200)).body.totalEarnedPoints).toBe(11 * 10);
  });

  it('refuses the 361st order request in 30 s, with Retry-After until the oldest leaves the window', async () => {
    const preview = () => http.post(`${API}/orders/reward-preview`).set({ apikey: KEYS.apikey }).send({ totalPaid: 10 });
    for (let second = 0; second < 12; second++) {
      await pass(30, preview);
      await advance(1000);
    }
    await advance(500);
    refused(await http.post(`${API}/orders`).set(KEYS).send({ customerId: 'c1', orderId: 'o-1', orderDate: T, totalPaid: 10 }), 18);
    await advance(17_500);
    await pass(30, preview);
  });

  it('a redemption is a transaction write (Transactions POST), counted with holds, not with orders', async () => {
    await pass(30, () => hold());
    const err = refused(
      await http.post(`${API}/transactions/redeem`).set(KEYS).send({ customerId: 'c1', transactionId: 'r1', transactionTime: T, points: 1 }),
      1,
    );
    expect(err.message).toContain('Transactions POST');
    await http.post(`${API}/orders`).set(KEYS).send({ customerId: 'c1', orderId: 'o-1', orderDate: T, totalPaid: 10 }).expect(200);
    await advance(1000);
    await http.post(`${API}/transactions/redeem`).set(KEYS).send({ customerId: 'c1', transactionId: 'r1', transactionTime: T, points: 1 }).expect(200);
  });

  it('an account can switch them off, scale them or set figures per bucket (admin API, merged one level)', async () => {
    const off = await setLimits({ enforced: false }).expect(200);
    expect(off.body.rateLimits).toEqual({ enforced: false, multiplier: 1, buckets: {} });
    await pass(100, () => hold());

    await advance(30_000);
    await setLimits({ enforced: true, multiplier: 0.1 }).expect(200);
    await pass(3, () => hold());
    refused(await hold(), 1);
    await advance(1000);
    // Customer reads: 100 x 0.1 = 10 per second.
    await pass(10, () => balance());
    refused(await balance(), 1);

    await advance(30_000);
    const own = await setLimits({ multiplier: 1, buckets: { transactionsWrite: { rate: 5 } } }).expect(200);
    expect(own.body.rateLimits).toEqual({ enforced: true, multiplier: 1, buckets: { transactionsWrite: { rate: 5 } } });
    await pass(5, () => hold());
    const err = refused(await hold(), 1);
    expect(err.message).toContain('allows 5 per second and 360 per 30 s');

    await advance(30_000);
    await setLimits({ buckets: { transactionsWrite: { rate: 100, quota: 40 } } }).expect(200);
    await pass(40, () => hold());
    refused(await hold(), 30);
  });

  it('refuses bad limit settings with a 4xx naming the field, and keeps the old ones', async () => {
    const cases: [unknown, string][] = [
      [{ multiplier: 0 }, 'rateLimits.multiplier'],
      [{ enforced: 'no' }, 'rateLimits.enforced'],
      [{ buckets: { transactions: { rate: 5 } } }, 'rateLimits.buckets: unknown bucket "transactions"; use one of: transactionsRead, transactionsWrite,'],
      [{ buckets: { transactionsWrite: { rate: 0 } } }, 'rateLimits.buckets.transactionsWrite.rate'],
      [{ buckets: { transactionsWrite: { perMinute: 5 } } }, 'perMinute'],
      [{ perMinute: 5 }, 'perMinute'],
    ];
    for (const [rateLimits, naming] of cases) {
      const res = await setLimits(rateLimits);
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
      expect(res.body.message).toContain(naming);
    }
    expect((await http.get(`/_sandbox/accounts/${API_KEY}`).set(KEYS)).body.rateLimits).toEqual({ enforced: true, multiplier: 1, buckets: {} });
    expect(() => createSandbox({ accounts: [testAccount({ rateLimits: { multiplier: -1 } })] })).toThrow(/rateLimits\.multiplier/);
  });

  it('a fault rule still injects a 429 while the limits are on; the admin API is never limited; a reset empties the windows', async () => {
    await http
      .put('/_sandbox/faults')
      .set(KEYS)
      .send({ rules: [{ operation: 'hold', status: 429, times: 1 }] })
      .expect(200);
    const res = await hold();
    const injected = refused(res, 1);
    expect(res.headers['x-sandbox-fault']).toBe('hold');
    expect(injected.message).toContain('injected by a sandbox fault');
    await pass(29, () => hold());
    // The request the fault rule answered reached the service: it counts.
    refused(await hold(), 1);

    await pass(200, () => http.get(`/_sandbox/accounts/${API_KEY}`).set(KEYS));
    await http.post('/_sandbox/reset').set(KEYS).expect(200);
    await http.post('/_sandbox/customers').set(KEYS).send({ customerId: 'c1', points: 100 }).expect(201);
    await pass(30, () => hold());
  });
});
