import fc from 'fast-check';
import type { CallPriority } from '../../../src/upstream';
import { MemoryBudget } from '../../../src/upstream/policies';
import { rules } from './budget-rules';

/**
 * A long random mix of priorities on a fake clock, each call confirming its
 * booking when its wait is over, as budgetPolicy does: whatever second legs
 * displace, the calls sent never exceed the rate in any second (+ margin) nor
 * the quota in any window (+ margin), and none goes later than its priority may wait.
 */
const RATE = 10;
const QUOTA = 40;
const WINDOW = 3000;
const MARGIN = 50;
const WAITS: Record<CallPriority, number> = { secondLeg: 1000, cashier: 250, background: 50 };

type Event = { at: number; seq: number; arrival?: CallPriority; booking?: { id: string; asked: number; p: CallPriority } };

function simulate(calls: { gap: number; p: CallPriority }[]) {
  let now = 0;
  const budget = new MemoryBudget(
    { ...rules({ rate: RATE, quota: QUOTA }, { windowMs: WINDOW, waits: [WAITS.secondLeg, WAITS.cashier, WAITS.background] }), marginMs: MARGIN },
    () => now,
  );
  const events: Event[] = [];
  let seq = 0;
  let t = 0;
  for (const c of calls) events.push({ at: (t += c.gap), seq: seq++, arrival: c.p });
  const sent: { at: number; asked: number; p: CallPriority }[] = [];
  const out = { sent, displacedRefused: 0, legWaits: [] as number[] };
  return (async () => {
    while (events.length) {
      events.sort((a, b) => a.at - b.at || a.seq - b.seq);
      const e = events.shift()!;
      now = e.at;
      if (e.arrival) {
        const r = await budget.reserve('transactionsWrite', e.arrival);
        if (!r.ok) continue;
        if (e.arrival === 'secondLeg') out.legWaits.push(r.waitMs);
        if (r.booking) events.push({ at: now + r.waitMs, seq: seq++, booking: { id: r.booking, asked: now, p: e.arrival } });
        else sent.push({ at: now + r.waitMs, asked: now, p: e.arrival });
      } else if (e.booking) {
        const c = await budget.confirm('transactionsWrite', e.booking.id);
        if (c.ok) sent.push({ at: now + c.waitMs, asked: e.booking.asked, p: e.booking.p });
        else out.displacedRefused += 1;
      }
    }
    return out;
  })();
}

const mostIn = (times: number[], span: number) => {
  let most = 0;
  for (let i = 0, j = 0; i < times.length; i++) {
    while (times[i] - times[j] >= span) j++;
    most = Math.max(most, i - j + 1);
  }
  return most;
};

describe('second legs first: rate and quota hold over a long random mix (memory, fake clock)', () => {
  it('never more than the rate in a second, the quota in a window, or a priority past its wait', async () => {
    let displaced = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ gap: fc.integer({ min: 0, max: 150 }), p: fc.constantFrom<CallPriority>('secondLeg', 'cashier', 'cashier', 'background') }), {
          minLength: 50,
          maxLength: 400,
        }),
        async (calls) => {
          const { sent, displacedRefused } = await simulate(calls);
          displaced += displacedRefused;
          const times = sent.map((s) => s.at).sort((a, b) => a - b);
          expect(mostIn(times, 1000 + MARGIN)).toBeLessThanOrEqual(RATE);
          expect(mostIn(times, WINDOW + MARGIN)).toBeLessThanOrEqual(QUOTA);
          for (const s of sent) expect(s.at - s.asked).toBeLessThanOrEqual(WAITS[s.p]);
        },
      ),
      { numRuns: 150 },
    );
    // The mix did displace calls (else the property says nothing about the swap).
    expect(displaced).toBeGreaterThan(0);
  });
});
