import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { addStore, addTerminal } from '../../src/pos/terminals';
import { e2eAccount, SANDBOX_KEYS } from '../support/e2e';
import { freePort } from '../support/ports';
import { eventually } from '../faults/process-stack';
import { ThrowawayRedis } from '../faults/throwaway-redis';
import { REPO } from '../store/program';
import { Bff, extractRelease, previousReleaseCommit, Sandbox, startBffProcess, startSandboxProcess, stop } from './two-releases';

/**
 * A rolling upgrade: a BFF of the previous release (test/upgrade/previous-release.txt)
 * and one of this checkout run side by side on one Redis, one key prefix and
 * one terminals file, against one sandbox. Claims, records and keys written
 * by one are read and finished by the other, both ways, and the upstream's
 * balances show every action applied once. Then the old instance goes
 * (SIGTERM: its queued sale is delivered by the new one; SIGKILL mid-payment:
 * the new one settles the hold it left `paying`).
 */
describe('rolling upgrade: the previous release and this one on one Redis', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'posbff-upgrade-'));
  let previous: ReturnType<typeof extractRelease> | undefined;
  let redis: ThrowawayRedis;
  let sandbox: Sandbox;
  let env: Record<string, string>;
  let old: Bff;
  let now: Bff;
  let crashed: Bff | undefined;
  const tokens = { cashier: '', manager: '', otherManager: '' };

  beforeAll(async () => {
    previous = extractRelease(previousReleaseCommit());
    const terminalsFile = path.join(dir, 'terminals.json');
    for (const n of ['001', '002']) {
      addStore(terminalsFile, {
        id: `store-${n}`,
        merchant: { uniqueId: 'm-1', name: 'Test Retail' },
        branch: { uniqueId: `branch-${n}`, name: `Branch ${n}` },
      });
    }
    tokens.cashier = addTerminal(terminalsFile, { storeId: 'store-001', role: 'cashier', id: 'till-cashier' }).token;
    tokens.manager = addTerminal(terminalsFile, { storeId: 'store-001', role: 'manager', id: 'till-manager' }).token;
    tokens.otherManager = addTerminal(terminalsFile, { storeId: 'store-002', role: 'manager', id: 'till-manager-002' }).token;
    redis = new ThrowawayRedis(await freePort());
    await redis.start();
    sandbox = await startSandboxProcess(dir, [e2eAccount()]);
    env = {
      LOYALTY_BASE_URL: sandbox.url,
      LOYALTY_TIMEOUT_MS: '5000',
      LOYALTY_RETRIES: '0',
      BREAKER_FAILURE_THRESHOLD: '10000',
      REDIS_URL: redis.url,
      REDIS_KEY_PREFIX: `upgrade:${randomUUID().slice(0, 8)}:`,
      TERMINALS_FILE: terminalsFile,
      DEMO_SETUP: 'false',
      REDEMPTION_PROOF: 'hash_or_otp',
      SWEEPER_INTERVAL_MS: '200',
      IDEMPOTENCY_LEASE_MS: '1000',
      OUTBOX_CLAIM_IDLE_MS: '1000',
      OUTBOX_POLL_INTERVAL_MS: '50',
      OUTBOX_BACKOFF_BASE_MS: '100',
      OUTBOX_BACKOFF_MAX_MS: '300',
    };
    [old, now] = await Promise.all([startBffProcess(previous.dir, 'previous', env), startBffProcess(REPO, 'current', env)]);
  }, 60_000);

  afterAll(async () => {
    for (const p of [old, now, crashed, sandbox]) if (p) await stop(p);
    await redis?.cleanup();
    previous?.remove();
    rmSync(dir, { recursive: true, force: true });
  });

  const upstream = (p: string) => sandbox.admin.get(`/api/v4.0/integrations${p}`).set(SANDBOX_KEYS);
  const points = async (customerId: string) => (await upstream(`/customers/${customerId}/balance`).expect(200)).body.availablePointsBalance as number;
  const hash = async (customerId: string) => (await upstream(`/customers/${customerId}/hash`).expect(200)).body.hash as string;
  const seed = (customerId: string, pts: number) => sandbox.admin.post('/_sandbox/customers').set(SANDBOX_KEYS).send({ customerId, points: pts }).expect(201);
  const payments = async (customerId: string) =>
    ((await sandbox.admin.get(`/_sandbox/customers/${customerId}/activity`).set(SANDBOX_KEYS).expect(200)).body.activity as { type: string }[]).filter(
      (a) => a.type === 'Payment Processed',
    );
  const faults = (rules: object[]) => sandbox.admin.put('/_sandbox/faults').set(SANDBOX_KEYS).send({ rules }).expect(200);
  const faultsApplied = async () =>
    ((await sandbox.admin.get('/_sandbox/faults').set(SANDBOX_KEYS).expect(200)).body.rules as { applied: number }[]).map((r) => r.applied);
  const otpAccount = (otpEnabled: boolean) => sandbox.admin.put(`/_sandbox/accounts/${SANDBOX_KEYS.apikey}`).set(SANDBOX_KEYS).send({ otpEnabled }).expect(200);
  const hold = async (bff: Bff, customerId: string, pts: number) => {
    const res = await bff.pos(tokens.cashier).post('/redemptions', { customerId, hash: await hash(customerId), points: pts });
    expect(res.body).toMatchObject({ state: 'held', points: pts });
    return res.body.id as string;
  };

  // First: any hold the new instance placed itself (a QR code, no OTP asked) would teach it the same.
  it('the OTP mode the previous release learnt is read by this one', async () => {
    // A QR hold placed without a code: the old instance learns the account does not check OTPs...
    await seed('up-otp-a', 500);
    await old
      .pos(tokens.cashier)
      .post('/redemptions', { qr: `up-otp-a:${await hash('up-otp-a')}`, points: 100 })
      .expect(201);
    // ...so the new one refuses a typed id before anything is sent (with nothing learnt it would ask the upstream for a code).
    await faults([
      { operation: 'hold', latencyMs: 0 },
      { operation: 'otp', latencyMs: 0 },
    ]);
    const typed = await now.pos(tokens.cashier).post('/redemptions', { customerId: 'up-otp-a', points: 100 });
    expect({ status: typed.status, code: typed.body.code }).toEqual({ status: 422, code: 'proof_required' });
    expect(await faultsApplied()).toEqual([0, 0]);
    await faults([]);
  });

  it.each([
    ['held by the previous release, paid through this one', () => [old, now]],
    ['held by this release, paid through the previous one', () => [now, old]],
  ])('a redemption %s', async (_, pair) => {
    const [holder, payer] = pair();
    const customerId = `up-rdm-${holder === old ? 'old' : 'new'}`;
    await seed(customerId, 1000);
    const id = await hold(holder, customerId, 300);
    expect(await points(customerId)).toBe(700);
    expect((await payer.pos(tokens.cashier).get(`/redemptions/${id}`).expect(200)).body).toMatchObject({ state: 'held', points: 300 });
    const paid = await payer
      .pos(tokens.cashier)
      .post('/payments', { customerId, paymentId: `${customerId}-sale`, totalPaid: 50, redemptionId: id })
      .expect(201);
    expect(paid.body).toMatchObject({ status: 'recorded', pointsRedeemed: 300, redemption: { id, state: 'redeemed' } });
    expect((await holder.pos(tokens.cashier).get(`/redemptions/${id}`).expect(200)).body).toMatchObject({ state: 'redeemed', paymentId: `${customerId}-sale` });
    expect(await points(customerId)).toBe(1000 - 300 + 50);
    expect(await payments(customerId)).toHaveLength(1);
  });

  it.each([
    ['locked on the previous release, used by a sale on this one', () => [old, now]],
    ['locked on this release, used by a sale on the previous one', () => [now, old]],
  ])('a coupon lock %s', async (_, pair) => {
    const [locker, seller] = pair();
    const customerId = `up-cpn-${locker === old ? 'old' : 'new'}`;
    await seed(customerId, 0);
    const lock = await locker
      .pos(tokens.cashier)
      .post('/coupon-locks', { customerId, codes: ['WELCOME10'], basketTotal: 100 })
      .expect(201);
    expect(lock.body).toMatchObject({ state: 'locked', totalWorth: 10 });
    const paid = await seller
      .pos(tokens.cashier)
      .post('/payments', { customerId, paymentId: `${customerId}-sale`, totalPaid: 90, couponLockId: lock.body.id })
      .expect(201);
    expect(paid.body).toMatchObject({ status: 'recorded', couponLock: { id: lock.body.id, state: 'used', coupons: ['WELCOME10'] } });
    expect((await locker.pos(tokens.cashier).get(`/coupon-locks/${lock.body.id}`).expect(200)).body).toMatchObject({
      state: 'used',
      paymentId: `${customerId}-sale`,
    });
    const coupons = (await upstream(`/customers/${customerId}/coupons`).expect(200)).body.coupons as { code: string; customerUsedCount: number }[];
    expect(coupons.find((c) => c.code === 'WELCOME10')).toMatchObject({ customerUsedCount: 1 });
    expect(await points(customerId)).toBe(90);
  });

  it('a sale recorded by the previous release is refunded and voided through this one, and only by its own store', async () => {
    await seed('up-sale', 0);
    await old.pos(tokens.cashier).post('/payments', { customerId: 'up-sale', paymentId: 'up-sale-1', totalPaid: 80 }).expect(201);
    expect(await points('up-sale')).toBe(80);

    // Store 002 does not own the sale the old instance claimed for store 001.
    const foreign = await now.pos(tokens.otherManager).post('/refunds', { customerId: 'up-sale', refundId: 'up-sale-b', paymentId: 'up-sale-1', amount: 10 });
    expect({ status: foreign.status, code: foreign.body.code }).toEqual({ status: 404, code: 'sale_not_found' });
    const foreignVoid = await now.pos(tokens.otherManager).post('/payments/up-sale-1/void', { customerId: 'up-sale' });
    expect({ status: foreignVoid.status, code: foreignVoid.body.code }).toEqual({ status: 404, code: 'sale_not_found' });
    expect(await points('up-sale')).toBe(80);

    await now.pos(tokens.manager).post('/refunds', { customerId: 'up-sale', refundId: 'up-sale-r1', paymentId: 'up-sale-1', amount: 30 }).expect(201);
    expect(await points('up-sale')).toBe(50);
    const voided = await now.pos(tokens.manager).post('/payments/up-sale-1/void', { customerId: 'up-sale' }).expect(200);
    expect(voided.body).toMatchObject({ paymentId: 'up-sale-1' });
    expect(await points('up-sale')).toBe(0);
    // The old instance reads the voided sale the new one wrote: a second void is refused, nothing moves.
    const again = await old.pos(tokens.manager).post('/payments/up-sale-1/void', { customerId: 'up-sale' });
    expect({ status: again.status, code: again.body.code }).toEqual({ status: 409, code: 'sale_already_voided' });
    expect(await points('up-sale')).toBe(0);
  });

  it('an Idempotency-Key used on the previous release is replayed by this one with the same answer', async () => {
    await seed('up-key', 0);
    const sale = { customerId: 'up-key', paymentId: 'up-key-1', totalPaid: 40 };
    const first = await old.pos(tokens.cashier).post('/payments', sale).set('Idempotency-Key', 'up-key-k1').expect(201);
    const replay = await now.pos(tokens.cashier).post('/payments', sale).set('Idempotency-Key', 'up-key-k1').expect(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toEqual(first.body);
    // The same key for another body is refused by the new instance too.
    const other = await now
      .pos(tokens.cashier)
      .post('/payments', { ...sale, totalPaid: 41 })
      .set('Idempotency-Key', 'up-key-k1');
    expect({ status: other.status, code: other.body.code }).toEqual({ status: 422, code: 'idempotency_key_reused' });
    expect(await payments('up-key')).toHaveLength(1);
    expect(await points('up-key')).toBe(40);
  });

  it("the audit trail read through this release holds both instances' entries", async () => {
    const trail = async (customerId: string) =>
      (
        (await now.pos(tokens.manager).get(`/audit?customerId=${customerId}`).expect(200)).body.entries as {
          action: string;
          cashierId: string;
          outcome: string;
          code?: string;
        }[]
      ).map((e) => [e.action, e.cashierId, e.outcome, e.code ?? ''].join(' ').trim());
    const expected = {
      'up-rdm-old': ['redemption_start previous applied', 'payment current applied'],
      'up-rdm-new': ['redemption_start current applied', 'payment previous applied'],
      'up-sale': ['payment previous applied', 'refund current applied', 'sale_void current applied', 'sale_void previous refused sale_already_voided'],
    };
    for (const [customerId, lines] of Object.entries(expected)) {
      await eventually(async () => (await trail(customerId)).length >= lines.length, 10_000, `${customerId}'s audit entries`);
      expect(await trail(customerId)).toEqual(lines);
    }
  });

  it('a hold and a coupon lock the previous release left `paying` when SIGKILLed mid-payment are settled through this release', async () => {
    // A second instance of the previous release, so the first stays for the checks below.
    crashed = await startBffProcess(previous!.dir, 'previous', env);
    await seed('up-kill', 1000);
    const id = await hold(crashed, 'up-kill', 300);
    const lock = await crashed
      .pos(tokens.cashier)
      .post('/coupon-locks', { customerId: 'up-kill', codes: ['WELCOME10'], basketTotal: 100 })
      .expect(201);
    const sale = { customerId: 'up-kill', paymentId: 'up-kill-1', totalAmount: 100, totalPaid: 60, redemptionId: id, couponLockId: lock.body.id };
    await faults([{ operation: 'payment', latencyMs: 1500 }]);
    const inFlight = crashed
      .pos(tokens.cashier)
      .post('/payments', sale)
      .set('Idempotency-Key', 'up-kill-k1')
      .then(
        (r) => r.status,
        () => 'connection lost',
      );
    await eventually(async () => (await faultsApplied())[0] >= 1 || undefined, 10_000, 'the payment to reach the sandbox');
    expect(await stop(crashed)).toEqual({ code: null, signal: 'SIGKILL' });
    expect(await inFlight).toBe('connection lost');
    await faults([]);
    await eventually(async () => (await payments('up-kill')).length === 1 || undefined, 10_000, 'the payment to land upstream');
    expect(['paying', 'redeemed']).toContain((await now.pos(tokens.cashier).get(`/redemptions/${id}`).expect(200)).body.state);
    expect(['paying', 'used']).toContain((await now.pos(tokens.cashier).get(`/coupon-locks/${lock.body.id}`).expect(200)).body.state);

    // The till retries the same sale with the same key on the new instance once the dead one's key lapses.
    const retry = await eventually(
      async () => {
        const r = await now.pos(tokens.cashier).post('/payments', sale).set('Idempotency-Key', 'up-kill-k1');
        return r.body.code === 'idempotency_request_in_progress' ? undefined : r;
      },
      10_000,
      'the dead instance key to lapse',
    );
    expect({ status: retry.status, body: retry.body }).toMatchObject({
      status: 201,
      body: { paymentId: 'up-kill-1', status: 'already_recorded', redemption: { id, state: 'redeemed' }, couponLock: { id: lock.body.id, state: 'used' } },
    });
    expect((await now.pos(tokens.cashier).get(`/redemptions/${id}`).expect(200)).body).toMatchObject({ state: 'redeemed', paymentId: 'up-kill-1' });
    expect((await now.pos(tokens.cashier).get(`/coupon-locks/${lock.body.id}`).expect(200)).body).toMatchObject({ state: 'used', paymentId: 'up-kill-1' });
    const coupons = (await upstream('/customers/up-kill/coupons').expect(200)).body.coupons as { code: string; customerUsedCount: number }[];
    expect(coupons.find((c) => c.code === 'WELCOME10')).toMatchObject({ customerUsedCount: 1 });
    expect(await payments('up-kill')).toHaveLength(1);
    expect(await points('up-kill')).toBe(1000 - 300 + 60);
  }, 40_000);

  // Last but the outbox: the mode learnt here (OTPs checked) would make the holds above ask for codes.
  it('the OTP mode the previous release then learnt and the code ticket it took are read by this one, and its code places the hold there', async () => {
    // The fleet believes OTPs are not checked (the first test): the old instance's hold is sent without a code.
    await otpAccount(true);
    try {
      // The old instance's hold is refused for want of a code: it learns OTPs are checked, sends one, takes the customer's ticket.
      await seed('up-otp-b', 500);
      const started = await old
        .pos(tokens.cashier)
        .post('/redemptions', { qr: `up-otp-b:${await hash('up-otp-b')}`, points: 100 })
        .expect(201);
      expect(started.body.state).toBe('otp_required');
      // The new instance reads both: OTPs checked, so no hold is sent without a code (nothing learnt, or "not
      // checked", would send one), and the ticket stands, so another redemption for that customer is refused.
      await faults([
        { operation: 'hold', latencyMs: 0 },
        { operation: 'otp', latencyMs: 0 },
      ]);
      const second = await now.pos(tokens.cashier).post('/redemptions', { qr: `up-otp-b:${await hash('up-otp-b')}`, points: 50 });
      expect({ status: second.status, code: second.body.code }).toEqual({ status: 409, code: 'otp_pending_for_another_redemption' });
      expect(await faultsApplied()).toEqual([0, 0]);
      // Another customer's QR start on the new one asks for the code at once.
      await seed('up-otp-c', 500);
      const asked = await now
        .pos(tokens.cashier)
        .post('/redemptions', { qr: `up-otp-c:${await hash('up-otp-c')}`, points: 100 })
        .expect(201);
      expect(asked.body.state).toBe('otp_required');
      expect(await faultsApplied()).toEqual([0, 1]);
      await faults([]);
      // The code the old instance had sent places its redemption's hold through the new one.
      const code = (await sandbox.admin.get('/_sandbox/otp/up-otp-b').set(SANDBOX_KEYS).expect(200)).body.otp as string;
      const held = await now.pos(tokens.cashier).post(`/redemptions/${started.body.id}/otp`, { otp: code }).expect(200);
      expect(held.body).toMatchObject({ id: started.body.id, state: 'held', points: 100 });
      expect(await points('up-otp-b')).toBe(400);
      expect((await old.pos(tokens.cashier).get(`/redemptions/${started.body.id}`).expect(200)).body.state).toBe('held');
    } finally {
      await faults([]);
      await otpAccount(false);
    }
  });

  it('a sale the previous release queued while the upstream was unreachable is delivered by this release once it stops', async () => {
    await seed('up-queued', 0);
    await faults([{ operation: 'payment', status: 503 }]);
    const queued = await old.pos(tokens.cashier).post('/payments', { customerId: 'up-queued', paymentId: 'up-queued-1', totalPaid: 60 }).expect(202);
    const outboxId = queued.body.outboxId as string;
    expect((await now.pos(tokens.cashier).get(`/outbox/${outboxId}`).expect(200)).body.state).not.toBe('delivered');
    // The sale's own send and at least one of the old worker's: the entry is the old instance's to deliver.
    await eventually(async () => (await faultsApplied())[0] >= 2 || undefined, 10_000, 'the old worker to try the upstream');

    // The old instance is taken out of the rotation (SIGTERM hands its entries back); the upstream is back.
    expect(await stop(old, 'SIGTERM')).toEqual({ code: 0, signal: null });
    await faults([]);
    await eventually(
      async () => (await now.pos(tokens.cashier).get(`/outbox/${outboxId}`).expect(200)).body.state === 'delivered' || undefined,
      15_000,
      'the new worker to deliver',
    );
    await eventually(
      async () => now.logs.some((l) => l.includes('"msg":"outbox entry delivered"') && l.includes(outboxId)) || undefined,
      5000,
      'the delivery log line',
    );
    expect(await payments('up-queued')).toHaveLength(1);
    expect(await points('up-queued')).toBe(60);
    // The sale is store 001's on the new instance: its own manager reads it, store 002 cannot refund it.
    await now.pos(tokens.manager).get('/payments/up-queued-1').expect(200);
    const foreign = await now
      .pos(tokens.otherManager)
      .post('/refunds', { customerId: 'up-queued', refundId: 'up-queued-b', paymentId: 'up-queued-1', amount: 10 });
    expect({ status: foreign.status, code: foreign.body.code }).toEqual({ status: 404, code: 'sale_not_found' });
  }, 40_000);
});
