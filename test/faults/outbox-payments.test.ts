import { SALE_OPERATION, Stack, startStack } from '../support/e2e';
import { eventually, inBatches, paymentsOf, pending, setFaults } from '../pos/outbox/stack-helpers';

/**
 * Store-and-forward under an outage: payments (no redemption) sent while the
 * loyalty service answers 503, drops connections, or applies them too slowly
 * to answer in time (the answer is lost), then recovers. Every payment must end
 * up in the sandbox exactly once, with its points awarded once.
 */
const FAST_OUTBOX = {
  LOYALTY_RETRIES: '0',
  LOYALTY_TIMEOUT_MS: '400',
  OUTBOX_POLL_INTERVAL_MS: '50',
  OUTBOX_BACKOFF_BASE_MS: '50',
  OUTBOX_BACKOFF_MAX_MS: '300',
  // The breaker has its own test; here every failure must reach the sandbox.
  BREAKER_FAILURE_THRESHOLD: '10000',
};

interface Sale {
  customerId: string;
  paymentId: string;
  totalPaid: number;
}

function sales(phase: string, customers: number, perCustomer: number): Sale[] {
  const out: Sale[] = [];
  for (let n = 0; n < perCustomer; n++) {
    for (let c = 0; c < customers; c++) out.push({ customerId: `${phase}-c${c}`, paymentId: `${phase}-c${c}-p${n}`, totalPaid: 10 + ((c + n) % 7) });
  }
  return out;
}

describe.each([['redis', 2, 1] as const, ['memory', 1, 0.3] as const])(
  'payments during an outage are queued and delivered exactly once (%s store)',
  (store, instances, scale) => {
    let s: Stack;
    beforeAll(async () => {
      s = await startStack({ store, instances, env: FAST_OUTBOX });
    });
    afterAll(async () => {
      await s?.close();
    });

    const perCustomer = Math.round(8 * scale);
    it(`${25 * perCustomer} payments through 503s, dropped connections and lost answers`, async () => {
      const phases: [string, object[], Sale[]][] = [
        ['unavailable', [{ operation: SALE_OPERATION, status: 503 }], sales(`${store}-u`, 10, perCustomer)],
        ['dropped', [{ operation: SALE_OPERATION, drop: true }], sales(`${store}-d`, 10, perCustomer)],
        // Applied by the sandbox after 700 ms, but the BFF gave up at 400 ms: the answer is lost.
        ['answer lost', [{ operation: SALE_OPERATION, latencyMs: 700 }], sales(`${store}-t`, 5, perCustomer)],
      ];
      const all = phases.flatMap(([, , list]) => list);
      for (const customer of new Set(all.map((x) => x.customerId))) await s.seed(customer, 0);

      const answers: { status: number; body: { queued?: boolean; outboxId?: string; reason?: string; paymentId?: string } }[] = [];
      for (const [, rules, list] of phases) {
        await setFaults(s, rules);
        // Spread over the instances, 20 tills at a time.
        answers.push(...(await inBatches(list, 20, (sale, i) => s.pos('cashier', i % instances).post('/payments', sale))));
      }
      // Let the slow calls still inside the sandbox finish (700 ms latency) before it "recovers": a lost answer then
      // means the payment was applied (unless the call timed out before it was even sent, waiting for a socket).
      await new Promise((r) => setTimeout(r, 800));
      await setFaults(s, []);

      expect(answers.map((a) => a.status)).toEqual(all.map(() => 202));
      expect(answers.every((a) => a.body.queued === true && /^obx_/.test(a.body.outboxId ?? ''))).toBe(true);
      expect(answers.map((a) => a.body.paymentId)).toEqual(all.map((x) => x.paymentId));
      const reasons = new Set(answers.map((a) => a.body.reason));
      expect(reasons).toEqual(new Set(['upstream_unavailable', 'upstream_timeout', 'behind_queued']));

      await eventually('the outbox to drain', async () => (await pending(s)) === 0, 30_000);

      // Every entry delivered, seen from the till's side too.
      const states = await inBatches(answers, 25, async (a) => (await s.pos('cashier').get(`/outbox/${a.body.outboxId}`).expect(200)).body);
      expect(states.map((x) => x.state)).toEqual(all.map(() => 'delivered'));
      const alreadyThere = states.filter((x) => x.result?.alreadyRecorded === true).length;

      // Exactly once in the sandbox, and the points once each.
      for (const customer of new Set(all.map((x) => x.customerId))) {
        const mine = all.filter((x) => x.customerId === customer);
        const recorded = await paymentsOf(s, customer);
        expect(recorded.slice().sort()).toEqual(mine.map((x) => x.paymentId).sort());
        const balance = await s.balance(customer);
        expect(balance.availablePointsBalance).toBe(mine.reduce((sum, x) => sum + x.totalPaid, 0));
      }
      // A lost answer was applied the first time: its redelivery was refused as a duplicate and counted as delivered.
      expect(states.filter((_x, i) => answers[i].body.reason === 'upstream_timeout').length).toBeGreaterThanOrEqual(5);
      expect(alreadyThere).toBeGreaterThanOrEqual(1);
      // No 5xx from any BFF instance (the sandbox's own injected 503s are in the log too, without an instance).
      expect(s.logs.filter((l) => l.includes('"instance":') && /"statusCode":5\d\d/.test(l))).toEqual([]);
      console.log(
        `${store}: ${all.length} payments queued (${[...reasons].join(', ')}), all delivered once; ${alreadyThere} found already recorded on redelivery`,
      );
    }, 60_000);
  },
);
