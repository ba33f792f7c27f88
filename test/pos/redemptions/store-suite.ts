import { ConflictError } from '../../../src/platform/errors';
import type { Redemption, RedemptionStore } from '../../../src/pos/redemptions';
import { aHold, HarnessFactory, StoreHarness, T0 } from './harness';

const EXPIRY = T0 + 600_000;

/** A payment's claim on a held redemption (the compare-and-set two payments race for). */
const claimForPayment = (r: Redemption): Redemption | string =>
  r.state === 'held' ? { ...r, state: 'paying', paymentId: 'pay-1' } : `redemption is ${r.state}`;

/** Sweeps until nothing is due, in small batches, as a sweeper instance would. */
async function sweepAll(store: RedemptionStore, now: number, batch: number): Promise<Redemption[]> {
  const all: Redemption[] = [];
  for (;;) {
    const got = await store.sweepDue(now, batch);
    all.push(...got);
    // Like the sweeper: a concurrent sweeper can take ids this one read, so only empty means done.
    if (got.length === 0) return all;
  }
}

/** The behaviour every RedemptionStore must have; run against each implementation. */
export function redemptionStoreSuite(name: string, makeHarness: HarnessFactory): void {
  describe(`${name}: RedemptionStore contract`, () => {
    let h: StoreHarness;
    let store: RedemptionStore;
    beforeEach(async () => {
      h = await makeHarness();
      store = h.store;
    });
    afterEach(() => h.cleanup());

    it('creates and reads back every field, at version 1', async () => {
      const full = aHold({ email: 'ana@example.com', mobile: '+15550100', paymentId: 'pay|9', version: 7 });
      await store.create(full);
      expect(await store.get(full.id, T0)).toEqual({ ...full, version: 1 });
      const rule = aHold({
        ask: { kind: 'rule', ruleId: 'r-"10%"' },
        hash: '042917',
        state: 'otp_required',
        expiresAt: undefined,
        holdReference: undefined,
        holdAmount: undefined,
        holdPoints: undefined,
      });
      delete rule.expiresAt;
      delete rule.holdReference;
      delete rule.holdAmount;
      delete rule.holdPoints;
      await store.create(rule);
      expect(await store.get(rule.id, T0)).toEqual(rule);
      expect(await store.get('rdm_missing', T0)).toBeNull();
    });

    it('keeps fields a later version of Redemption adds', async () => {
      const extended = { ...aHold(), otpSentAt: T0 + 5, note: { by: 'till' } } as Redemption;
      await store.create(extended);
      expect(await store.get(extended.id, T0)).toEqual(extended);
    });

    it('refuses a second create with the same id (409)', async () => {
      const hold = aHold();
      await store.create(hold);
      const err = await store.create({ ...hold, storeId: 'other' }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ConflictError);
      expect((err as ConflictError).code).toBe('redemption_exists');
      expect((await store.get(hold.id, T0))?.storeId).toBe('store-001');
    });

    it('refuses a held record without expiresAt', async () => {
      const bad = aHold();
      delete bad.expiresAt;
      await expect(store.create(bad)).rejects.toThrow(/expiresAt/);
    });

    it('indexes open records (held, paying, voiding) only, and counts them', async () => {
      await store.create(aHold());
      await store.create(aHold({ state: 'paying', paymentId: 'sale-1' }));
      await store.create(aHold({ state: 'voiding' }));
      await store.create(aHold({ state: 'otp_required', expiresAt: undefined }));
      await store.create(aHold({ state: 'confirming', expiresAt: undefined }));
      expect(await store.countOpen()).toBe(3);
    });

    it('refuses a paying record without its paymentId', async () => {
      await expect(store.create(aHold({ state: 'paying' }))).rejects.toThrow(/paymentId/);
    });

    it('changes a record: next version, updatedAt = now, same id', async () => {
      const hold = aHold();
      await store.create(hold);
      const result = await store.change(hold.id, T0 + 1000, (r) => ({ ...r, id: 'ignored', paymentId: 'pay-7' }));
      const expected = { ...hold, paymentId: 'pay-7', version: 2, updatedAt: T0 + 1000 };
      expect(result).toEqual({ ok: true, redemption: expected });
      expect(await store.get(hold.id, T0 + 1000)).toEqual(expected);
    });

    it('returns a refusal without writing, and not_found for an unknown id', async () => {
      const hold = aHold();
      await store.create(hold);
      const refused = await store.change(hold.id, T0, () => 'not your store');
      expect(refused).toEqual({ ok: false, reason: 'rejected', redemption: hold, detail: 'not your store' });
      expect((await store.get(hold.id, T0))?.version).toBe(1);
      expect(await store.change('rdm_missing', T0, claimForPayment)).toEqual({ ok: false, reason: 'not_found' });
    });

    it('keeps ending states final', async () => {
      const hold = aHold();
      await store.create(hold);
      expect((await store.change(hold.id, T0, (r) => ({ ...r, state: 'voiding' }))).ok).toBe(true);
      expect((await store.change(hold.id, T0, (r) => ({ ...r, state: 'voided' }))).ok).toBe(true);
      for (const state of ['held', 'voiding', 'redeemed', 'expired'] as const) {
        const back = await store.change(hold.id, T0, (r) => ({ ...r, state }));
        expect(back).toMatchObject({ ok: false, reason: 'rejected', detail: expect.stringContaining('voided') });
      }
      expect(await store.get(hold.id, T0)).toMatchObject({ state: 'voided', version: 3 });
      expect(await store.countOpen()).toBe(0);
    });

    it('refuses a transition its table does not have (held -> redeemed must go through paying), writing nothing', async () => {
      const hold = aHold();
      await store.create(hold);
      const direct = await store.change(hold.id, T0, (r) => ({ ...r, state: 'redeemed', paymentId: 'pay-1' }));
      expect(direct).toMatchObject({
        ok: false,
        reason: 'rejected',
        redemption: { state: 'held', version: 1 },
        detail: expect.stringContaining('cannot become redeemed'),
      });
      expect(await store.get(hold.id, T0)).toEqual(hold);
      expect(await store.countOpen()).toBe(1);
      expect((await store.change(hold.id, T0, claimForPayment)).ok).toBe(true);
      expect(await store.change(hold.id, T0, (r) => ({ ...r, state: 'redeemed' }))).toMatchObject({
        ok: true,
        redemption: { state: 'redeemed', paymentId: 'pay-1', version: 3 },
      });
    });

    it('lets exactly one of two concurrent conflicting changes win', async () => {
      const hold = aHold();
      await store.create(hold);
      const other = await h.twin();
      const results = await Promise.all([store.change(hold.id, T0, claimForPayment), other.change(hold.id, T0, claimForPayment)]);
      expect(results.filter((r) => r.ok)).toHaveLength(1);
      expect(results.filter((r) => !r.ok)).toEqual([expect.objectContaining({ reason: 'rejected', detail: 'redemption is paying' })]);
      expect(await store.get(hold.id, T0)).toMatchObject({ state: 'paying', paymentId: 'pay-1', version: 2 });
    });

    it('loses no update under concurrent read-modify-writes', async () => {
      const hold = aHold({ holdPoints: 0 });
      await store.create(hold);
      const other = await h.twin();
      const bump = (r: Redemption) => ({ ...r, holdPoints: (r.holdPoints ?? 0) + 1 });
      await Promise.all([1, 2, 3, 4, 5].map((i) => (i % 2 ? store : other).change(hold.id, T0, bump)));
      expect(await store.get(hold.id, T0)).toMatchObject({ holdPoints: 5, version: 6 });
    });

    it('keeps paying and voiding holds in the index, and takes redeemed and voided ones out', async () => {
      const [a, b, c] = [aHold(), aHold(), aHold()];
      for (const r of [a, b, c]) await store.create(r);
      await store.change(a.id, T0, claimForPayment);
      await store.change(b.id, T0, (r) => ({ ...r, state: 'voiding' }));
      expect(await store.countOpen()).toBe(3);
      expect((await store.change(a.id, T0, (r) => ({ ...r, state: 'redeemed' }))).ok).toBe(true);
      expect((await store.change(b.id, T0, (r) => ({ ...r, state: 'voided' }))).ok).toBe(true);
      expect(await store.countOpen()).toBe(1);
      // Neither comes back as expired when its old expiry passes.
      expect((await sweepAll(store, EXPIRY + 1, 10)).map((r) => r.id)).toEqual([c.id]);
    });

    it('puts an otp_required record into the index once it is held', async () => {
      const pending = aHold({ state: 'otp_required', expiresAt: undefined });
      await store.create(pending);
      expect(await store.countOpen()).toBe(0);
      await store.change(pending.id, T0, (r) => ({ ...r, state: 'confirming' }));
      expect(await store.countOpen()).toBe(0);
      await store.change(pending.id, T0, (r) => ({ ...r, state: 'held', expiresAt: EXPIRY }));
      expect(await store.countOpen()).toBe(1);
      expect((await store.sweepDue(EXPIRY, 10)).map((r) => r.id)).toEqual([pending.id]);
    });

    it('leaves a claimed hold (paying or voiding) as it is when due: not expired on read, handed to the sweeper, and seen again after the recheck time', async () => {
      const paying = aHold({ state: 'paying', paymentId: 'sale-1' });
      const voiding = aHold({ state: 'voiding' });
      const free = aHold();
      for (const r of [paying, voiding, free]) await store.create(r);
      expect((await store.get(paying.id, EXPIRY + 1))?.state).toBe('paying');
      expect((await store.get(voiding.id, EXPIRY + 1))?.state).toBe('voiding');
      const swept = await store.sweepDue(EXPIRY + 1, 10);
      expect(Object.fromEntries(swept.map((r) => [r.id, r.state]))).toEqual({ [paying.id]: 'paying', [voiding.id]: 'voiding', [free.id]: 'expired' });
      expect(swept.find((r) => r.id === paying.id)).toMatchObject({ paymentId: 'sale-1', version: 1 });
      // Handed out once per recheck period, so a sweeper that fails to settle it gets it again later.
      expect(await store.sweepDue(EXPIRY + 2, 10)).toEqual([]);
      expect((await store.sweepDue(EXPIRY + 1 + 30_000, 10)).map((r) => r.id).sort()).toEqual([paying.id, voiding.id].sort());
      // Once settled (here: the upstream said used), it leaves the index.
      await store.change(paying.id, EXPIRY + 40_000, (r) => ({ ...r, state: 'redeemed' }));
      expect((await store.sweepDue(EXPIRY + 100_000, 10)).map((r) => r.id)).toEqual([voiding.id]);
    });

    it('expires a due hold on read, once, and tells the read-expiry listener', async () => {
      const hold = aHold();
      await store.create(hold);
      const heard: Redemption[] = [];
      store.onReadExpiry?.((r) => heard.push(r));
      expect((await store.get(hold.id, EXPIRY - 1))?.state).toBe('held');
      const expired = { ...hold, state: 'expired', version: 2, updatedAt: EXPIRY };
      expect(await store.get(hold.id, EXPIRY)).toEqual(expired);
      expect(await store.get(hold.id, EXPIRY + 5)).toEqual(expired);
      expect(heard).toEqual([expired]);
      expect(await store.countOpen()).toBe(0);
      expect(await store.sweepDue(EXPIRY + 10, 10)).toEqual([]);
    });

    it('lapses a stand-in not yet paid, and one waiting for approval, at its expiresAt: on read, in the sweep, once each; a paid one leaves the index', async () => {
      const standIn = (over: Partial<Redemption>) =>
        aHold({ state: 'stand_in', holdReference: undefined, holdAmount: undefined, standIn: { points: 100, lastKnownBalance: 500 }, ...over });
      const unpaid = standIn({});
      const waiting = standIn({ state: 'stand_in_approval', standIn: { points: 400, lastKnownBalance: 500, approvalUntil: EXPIRY } });
      const paid = standIn({});
      const older = standIn({ expiresAt: undefined });
      delete older.expiresAt;
      for (const r of [unpaid, waiting, paid, older]) await store.create(r);
      expect(await store.countOpen()).toBe(3);
      await store.change(paid.id, T0 + 1, (r) => ({ ...r, state: 'stand_in_paid', paymentId: 'pay-s' }));
      expect(await store.countOpen()).toBe(2);
      const heard: Redemption[] = [];
      store.onReadExpiry?.((r) => heard.push(r));
      expect((await store.get(unpaid.id, EXPIRY - 1))?.state).toBe('stand_in');
      expect(await store.get(unpaid.id, EXPIRY)).toMatchObject({ state: 'expired', version: 2, standIn: unpaid.standIn });
      expect(heard.map((r) => r.id)).toEqual([unpaid.id]);
      expect(await sweepAll(store, EXPIRY, 10)).toEqual([{ ...waiting, state: 'expired', version: 2, updatedAt: EXPIRY }]);
      expect(await store.countOpen()).toBe(0);
      // One made before stand-ins lapsed (no expiresAt) stays as it was; a paid one is not lapsed.
      expect((await store.get(older.id, EXPIRY + 1000))?.state).toBe('stand_in');
      expect((await store.get(paid.id, EXPIRY + 1000))?.state).toBe('stand_in_paid');
    });

    it('lets a change see a due hold as expired, so a payment cannot claim it', async () => {
      const hold = aHold();
      await store.create(hold);
      const result = await store.change(hold.id, EXPIRY, claimForPayment);
      expect(result).toMatchObject({ ok: false, reason: 'rejected', detail: 'redemption is expired', redemption: { state: 'expired', version: 2 } });
    });

    it('sweeps only due holds, up to the limit, each once', async () => {
      const due = [1, 2, 3].map((i) => aHold({ expiresAt: T0 + i }));
      const later = aHold({ expiresAt: T0 + 100 });
      for (const r of [...due, later]) await store.create(r);
      const heard: Redemption[] = [];
      store.onReadExpiry?.((r) => heard.push(r));
      const first = await store.sweepDue(T0 + 3, 2);
      expect(first.map((r) => r.id)).toEqual([due[0].id, due[1].id]);
      expect(first[0]).toEqual({ ...due[0], state: 'expired', version: 2, updatedAt: T0 + 3 });
      expect((await store.sweepDue(T0 + 3, 2)).map((r) => r.id)).toEqual([due[2].id]);
      expect(await store.sweepDue(T0 + 3, 2)).toEqual([]);
      expect(await store.sweepDue(T0 + 3, 0)).toEqual([]);
      expect((await store.get(due[0].id, T0 + 3))?.state).toBe('expired');
      expect(heard).toEqual([]);
      expect(await store.countOpen()).toBe(1);
    });

    it('claims each of 500 due holds exactly once across two concurrent sweepers', async () => {
      const holds = Array.from({ length: 500 }, (_, i) => aHold({ expiresAt: T0 + (i % 50) }));
      await Promise.all(holds.map((r) => store.create(r)));
      await store.create(aHold({ expiresAt: T0 + 10_000 }));
      const other = await h.twin();
      const [a, b] = await Promise.all([sweepAll(store, T0 + 60, 37), sweepAll(other, T0 + 60, 41)]);
      const ids = [...a, ...b].map((r) => r.id);
      expect(ids).toHaveLength(500);
      expect(new Set(ids)).toEqual(new Set(holds.map((r) => r.id)));
      expect([...a, ...b].every((r) => r.state === 'expired' && r.version === 2)).toBe(true);
      expect(await store.countOpen()).toBe(1);
    });

    it('expires each hold once when reads race a sweeper', async () => {
      const holds = Array.from({ length: 200 }, () => aHold());
      await Promise.all(holds.map((r) => store.create(r)));
      const other = await h.twin();
      const byRead: string[] = [];
      expect(other.onReadExpiry).toBeDefined();
      other.onReadExpiry?.((r) => byRead.push(r.id));
      const [swept] = await Promise.all([sweepAll(store, EXPIRY, 16), Promise.all(holds.map((r) => other.get(r.id, EXPIRY)))]);
      const all = [...swept.map((r) => r.id), ...byRead];
      expect(all).toHaveLength(200);
      expect(new Set(all).size).toBe(200);
      for (const r of holds) expect(await store.get(r.id, EXPIRY)).toMatchObject({ state: 'expired', version: 2 });
    });

    it('hands out copies: mutating a returned record changes nothing stored', async () => {
      const hold = aHold();
      await store.create(hold);
      const got = (await store.get(hold.id, T0)) as Redemption;
      got.state = 'voided';
      (got.ask as { amount: number }).amount = 1;
      await store.change(hold.id, T0, (r) => {
        r.customerId = 'mutated';
        return 'no';
      });
      expect(await store.get(hold.id, T0)).toEqual(hold);
    });
  });
}
