import request from 'supertest';
import { API_PREFIX } from '../../../src/contract';
import { parseAccounts, startSandbox, StartedSandbox } from '../../../src/sandbox';
import { e2eAccount, SANDBOX_KEYS } from '../../support/e2e';
import { balanceSnapshot } from './balances';
import { FUZZ_BODY_LIMIT } from './bff-fuzz';
import { FuzzRoute, FuzzTally, FuzzTarget } from './fuzz';
import { rawClient } from './raw-http';

const CUSTOMER = 'fz-alice';
/** A new profile `POST /customers` creates; watched so a refused upsert is seen not to create it. */
const PROFILE = 'fz-profile';
/** A coupon with no usage limits, so every valid validate, lock and burn can succeed again. */
const COUPON = 'FZ-ANYTIME';

export interface SandboxFuzz {
  sandbox: StartedSandbox;
  target: FuzzTarget;
  routes: FuzzRoute[];
  tally: FuzzTally;
  close(): Promise<void>;
}

/**
 * The sandbox on a real port with a customer, a hold, a sale, an OTP, a
 * batch job and a coupon lock, so valid requests reach the rules. Admin calls
 * that change the sandbox itself (account settings, fault rules, reset) are
 * undone after each success, so one case cannot poison the next; routes that
 * use up what they name (a coupon lock, a transaction to forget) get a new one.
 */
export async function sandboxFuzz(): Promise<SandboxFuzz> {
  const demo = e2eAccount();
  const account = {
    ...demo,
    coupons: [
      ...(demo.coupons ?? []),
      {
        code: COUPON,
        name: 'Fuzz coupon',
        value: 5,
        startDate: '2024-01-01T00:00:00Z',
        expiryDate: '2099-12-31T23:59:59Z',
        usageLimit: 0,
        limitPerCustomer: 0,
      },
    ],
  };
  const sandbox = await startSandbox({ accounts: [account], bodyLimitBytes: FUZZ_BODY_LIMIT, port: 0 });
  const keys = { apikey: SANDBOX_KEYS.apikey, secretkey: SANDBOX_KEYS.secretkey };
  const api = request(sandbox.url);
  const now = () => new Date(sandbox.context.clock.now()).toISOString();
  const ok = (res: request.Response) => {
    if (res.status >= 300) throw new Error(`setup: ${res.status} ${res.text}`);
    return res.body;
  };
  const seed = async () => {
    ok(await api.post('/_sandbox/customers').set(keys).send({ customerId: CUSTOMER, points: 10_000_000, email: 'alice@example.com' }));
    ok(await api.post('/_sandbox/customers').set(keys).send({ customerId: 'fz-delete-me', points: 10 }));
  };
  await seed();
  const hold = ok(await api.post(`${API_PREFIX}/transactions/hold`).set(keys).send({ customerId: CUSTOMER, transactionTime: now(), pointsToHold: 10 }));
  ok(await api.post(`${API_PREFIX}/payments`).set(keys).send({ customerId: CUSTOMER, paymentId: 'fz-sale-refund', paymentDate: now(), totalPaid: 1_000_000 }));
  ok(await api.post(`${API_PREFIX}/transactions/otp`).set(keys).send({ customerId: CUSTOMER, points: 10 }));
  const job = ok(
    await api
      .post(`${API_PREFIX}/batch/orders`)
      .set(keys)
      .send({ body: [{ customerId: CUSTOMER, orderId: 'fz-o-1', orderDate: now(), totalPaid: 5 }] }),
  );
  const lockCoupon = async (): Promise<string> =>
    ok(
      await api
        .post(`${API_PREFIX}/coupons/validate`)
        .set(keys)
        .send({ customerId: CUSTOMER, coupons: [COUPON], lock: true }),
    ).lockReference as string;
  // Mutable: a released lock is replaced by a new one, so the valid case stays valid.
  const lock = { lockReference: await lockCoupon() };
  const FORGETTABLE = 'fz-sale-forget';
  const recordForgettable = async () => {
    ok(await api.post(`${API_PREFIX}/payments`).set(keys).send({ customerId: CUSTOMER, paymentId: FORGETTABLE, paymentDate: now(), totalPaid: 3 }));
  };
  await recordForgettable();
  const publicSettings = ok(await api.get(`/_sandbox/accounts/${keys.apikey}`).set(keys));
  const original = parseAccounts([account], 'fuzz account')[0];

  // Undo admin changes in-process: the next case must meet the sandbox as configured.
  const restoreAccount = async () => sandbox.context.store.replaceSettings(keys.apikey, original);
  const clearFaults = async () => sandbox.context.faults.clear();

  const op = (method: FuzzRoute['method'], path: string, extra: Partial<FuzzRoute> = {}): FuzzRoute => ({
    name: `${method} ${path}`,
    method,
    path: path.startsWith('/_sandbox') ? path : `${API_PREFIX}${path}`,
    headers: keys,
    success: [200],
    watch: [CUSTOMER],
    ...extra,
  });

  const routes: FuzzRoute[] = [
    op('POST', '/transactions/hold', { body: () => ({ customerId: CUSTOMER, transactionTime: now(), pointsToHold: 1, email: 'alice@example.com' }) }),
    op('GET', '/transactions/hold/:holdReferenceId', { params: { holdReferenceId: hold.holdReference } }),
    op('DELETE', '/transactions/hold/:holdReferenceId', { params: { holdReferenceId: hold.holdReference } }),
    op('POST', '/transactions/otp', { body: () => ({ customerId: CUSTOMER, points: 10 }) }),
    op('POST', '/payments', {
      body: (uniq) => ({
        customerId: CUSTOMER,
        paymentId: `fz-${uniq}`,
        paymentDate: now(),
        totalPaid: 12.5,
        totalAmount: 15,
        paymentDetails: [{ serviceId: 'sku-1', serviceName: 'Coffee', amount: 12.5, tax: 1, category: ['drinks'], tags: ['hot'], extra: { size: 'L' } }],
        merchant: { uniqueId: 'm-1', name: 'Test', branch: { uniqueId: 'b-1', name: 'Branch' } },
        channel: 'pos',
        cashbackConfigurations: { returnWindow: 0 },
        extra: { till: '3' },
      }),
    }),
    op('POST', '/transactions/redeem', {
      body: (uniq) => ({
        customerId: CUSTOMER,
        transactionId: `fz-rd-${uniq}`,
        transactionTime: now(),
        points: 1,
        merchant: { uniqueId: 'm-1', name: 'Test', branch: { uniqueId: 'b-1', name: 'Branch' } },
        reason: 'fuzz',
      }),
    }),
    op('POST', '/transactions/refund', {
      body: (uniq) => ({
        customerId: CUSTOMER,
        refundTransactionId: `fz-r-${uniq}`,
        reverseTransactionId: 'fz-sale-refund',
        transactionTime: now(),
        refundAmount: 1,
      }),
    }),
    op('POST', '/customers', {
      body: () => ({
        customerId: PROFILE,
        customerAttributes: { displayName: 'Fuzz', email: 'profile@example.com', totalOrders: 2, channel: 'pos', custom: { till: '3', visits: 4 } },
        guest: false,
      }),
      watch: [CUSTOMER, PROFILE],
    }),
    op('GET', '/customers/:customerId/balance', { params: { customerId: CUSTOMER } }),
    op('GET', '/customers/:customerId/hash', { params: { customerId: CUSTOMER } }),
    op('GET', '/customers/:customerId/coupons', { params: { customerId: CUSTOMER } }),
    op('GET', '/customers/:customerId/tier-progress', { params: { customerId: CUSTOMER }, query: '?expand=tier,referrals', headers: { ...keys, lang: 'ar' } }),
    op('DELETE', '/customers/:customerId', { params: { customerId: 'fz-delete-me' } }),
    op('POST', '/customers/:customerId/delete', { params: { customerId: 'fz-delete-me' } }),
    op('POST', '/coupons/validate', {
      body: () => ({ customerId: CUSTOMER, coupons: [COUPON, COUPON], lock: true, lockDuration: 5, totalPurchaseAmount: 40 }),
    }),
    op('POST', '/coupons/:code/validate', { params: { code: COUPON }, body: () => ({ customerId: CUSTOMER, totalPurchaseAmount: 40 }) }),
    op('POST', '/coupons/burn', { body: (uniq) => ({ customerId: CUSTOMER, transactionId: `fz-cb-${uniq}`, transactionTime: now(), coupons: [COUPON] }) }),
    op('DELETE', '/coupons/:lockReference', {
      params: lock,
      afterSuccess: async () => {
        lock.lockReference = await lockCoupon();
      },
    }),
    op('GET', '/configurations/redemption', { query: `?customerId=${CUSTOMER}` }),
    op('POST', '/events', {
      body: () => ({ customerId: CUSTOMER, events: { place_order: { amount: 5, items: ['a', 2] }, review_written: { stars: 5, verified: true, note: null } } }),
    }),
    op('POST', '/batch/orders', {
      body: (uniq) => ({ body: [{ customerId: CUSTOMER, orderId: `fz-o-${uniq}`, orderDate: now(), totalPaid: 5, channel: 'pos' }] }),
    }),
    op('POST', '/orders', {
      body: (uniq) => ({
        customerId: CUSTOMER,
        orderId: `fz-to-${uniq}`,
        orderDate: now(),
        totalPaid: 20,
        totalPrice: 25,
        totalDiscount: 5,
        lineItems: [{ productId: 'sku-1', quantity: 2, price: 12.5, category: ['drinks'], discount: 5, extra: { size: 'L' } }],
        merchant: { uniqueId: 'm-1', name: 'Test', branch: { uniqueId: 'b-1', name: 'Branch' } },
        channel: 'pos',
      }),
    }),
    op('POST', '/orders/reward-preview', {
      body: () => ({ customerId: CUSTOMER, totalPaid: 20, lineItems: [{ productId: 'sku-1', quantity: 2, price: 12.5, tags: ['hot'] }], channel: 'pos' }),
    }),
    op('GET', '/orders/:orderId/transactions', { params: { orderId: 'fz-sale-refund' } }),
    op('GET', '/transactions', { query: `?customerId=${CUSTOMER}&direction=%2B&limit=20` }),
    op('GET', '/batches/:batchId/status', { params: { batchId: String(job.jobId) } }),
    op('POST', '/_sandbox/customers', { body: () => ({ customerId: 'fz-seeded', points: 5, email: 'seeded@example.com' }), success: [200, 201] }),
    op('POST', '/_sandbox/customers/bulk', { body: () => ({ prefix: 'fz-bulk-', count: 3, points: 1 }) }),
    op('GET', '/_sandbox/customers/:customerId/activity', { params: { customerId: CUSTOMER } }),
    // Forgetting keeps balances. The sale is recorded again so its id names a transaction for the next case
    // (an odd id may name another: a mutated payment id the routes above were given).
    op('DELETE', '/_sandbox/transactions/:transactionId', {
      params: { transactionId: FORGETTABLE },
      afterSuccess: async (res) => {
        if ((res.json as { transactionId?: unknown }).transactionId === FORGETTABLE) await recordForgettable();
      },
    }),
    op('GET', '/_sandbox/otp/:customerId', { params: { customerId: CUSTOMER } }),
    op('GET', '/_sandbox/accounts/:apikey', { params: { apikey: keys.apikey } }),
    op('PUT', '/_sandbox/accounts/:apikey', { params: { apikey: keys.apikey }, body: () => publicSettings, afterSuccess: restoreAccount }),
    op('GET', '/_sandbox/faults'),
    op('PUT', '/_sandbox/faults', { body: () => ({ rules: [{ operation: 'balance', latencyMs: 0, probability: 1, times: 1 }] }), afterSuccess: clearFaults }),
    op('DELETE', '/_sandbox/faults'),
    op('GET', '/_sandbox/clock'),
    op('POST', '/_sandbox/clock/advance', { body: () => ({ ms: 1 }) }),
    op('GET', '/_sandbox/health', { headers: {} }),
    op('POST', '/_sandbox/reset', { afterSuccess: seed, watch: [] }),
  ];

  const client = rawClient(sandbox.url);
  const target: FuzzTarget = {
    program: 'sandbox',
    client,
    bodyLimitBytes: FUZZ_BODY_LIMIT,
    // The apikey is in the admin API's answers by design; the secret key never is.
    secrets: [SANDBOX_KEYS.secretkey],
    balances: async (ids) => balanceSnapshot(sandbox.context, SANDBOX_KEYS.apikey, ids),
    alive: () => client.send({ method: 'GET', path: '/_sandbox/health' }),
  };
  return {
    sandbox,
    target,
    routes,
    tally: { cases: 0, statuses: {} },
    async close() {
      client.close();
      await sandbox.close();
    },
  };
}
