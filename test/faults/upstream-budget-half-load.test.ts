import { performance } from 'node:perf_hooks';
import { startStack, Stack } from '../support/e2e';

/**
 * At half the published capacity the budget changes nothing for the till: no
 * refusal, no queued sale, no added latency. The published figures are scaled
 * down tenfold in time (a 3-s window, a tenth of each quota, the published
 * rates), so two whole windows pass in six seconds. The same sales go,
 * interleaved, to a fleet as it was before the quota: the same rates paced
 * the same way, no quota. Both have the budget's Redis round trip in the
 * path, so what could differ is only waiting for the quota or a priority.
 */
const RATES = { UPSTREAM_RATE_TRANSACTIONS_WRITE: '30', UPSTREAM_RATE_CUSTOMERS_READ: '100' };
const SCALED = { ...RATES, UPSTREAM_QUOTA_WINDOW_SECONDS: '3', UPSTREAM_QUOTA_TRANSACTIONS_WRITE: '36', UPSTREAM_QUOTA_CUSTOMERS_READ: '120' };
/** Half of 36 writes per 3 s. */
const SALES_PER_SECOND = 6;
const SECONDS = 6;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const p95 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.95)];

describe('at 0.5x capacity', () => {
  let limited: Stack;
  let open: Stack;
  beforeAll(async () => {
    limited = await startStack({ store: 'redis', instances: 2, env: SCALED });
    open = await startStack({ store: 'redis', instances: 2, env: RATES });
  });
  afterAll(async () => {
    await limited?.close();
    await open?.close();
  });

  it('every sale (with its receipt reads) is answered 201, as fast as with the rates alone', async () => {
    const n = SALES_PER_SECOND * SECONDS;
    for (const s of [limited, open]) for (let i = 0; i < n; i++) await s.seed(`half-${i}`, 0);
    const took: Record<'limited' | 'open', number[]> = { limited: [], open: [] };
    const statuses: number[] = [];
    const gapMs = 1000 / SALES_PER_SECOND;
    const started = performance.now();
    const runs: Promise<void>[] = [];
    for (let i = 0; i < n; i++) {
      // One sale every gap on each fleet, the two fleets half a gap apart, instances in turn.
      for (const [name, s, offset] of [
        ['limited', limited, 0],
        ['open', open, gapMs / 2],
      ] as const) {
        const due = started + i * gapMs + offset;
        await new Promise((r) => setTimeout(r, Math.max(0, due - performance.now())));
        const t = performance.now();
        runs.push(
          s
            .pos('cashier', i % 2)
            .post('/payments', { customerId: `half-${i}`, paymentId: `half-sale-${i}`, totalPaid: 10 })
            .then((res) => {
              took[name].push(performance.now() - t);
              if (name === 'limited') statuses.push(res.status);
            }),
        );
      }
    }
    await Promise.all(runs);
    expect(statuses).toHaveLength(n);
    expect(statuses.filter((st) => st !== 201)).toEqual([]);
    const figures = { limited: { p50: median(took.limited), p95: p95(took.limited) }, open: { p50: median(took.open), p95: p95(took.open) } };
    console.log(
      `0.5x capacity, ${n} sales each: budget p50 ${figures.limited.p50.toFixed(1)} ms p95 ${figures.limited.p95.toFixed(1)} ms; ` +
        `rates alone p50 ${figures.open.p50.toFixed(1)} ms p95 ${figures.open.p95.toFixed(1)} ms`,
    );
    // No waiting for the quota or a priority. A loose bound, as machines here are shared and noisy: a call short of
    // quota waits up to UPSTREAM_MAX_WAIT_MS (250 ms) and is then queued or refused, which the statuses catch.
    expect(figures.limited.p50 - figures.open.p50).toBeLessThan(20);
  });
});
