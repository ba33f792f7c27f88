import { problem } from '../../../src/platform/problem';
import { patiently } from '../../../src/pos/reconciliation/upstream-reads';

/** A reconciliation read refused for budget (the BFF's own fleet budget: nothing was sent) waits and asks again, until stopped. */
describe('a reconciliation read waiting out the budget', () => {
  const busy = () => Object.assign(problem('upstream_busy', 'over budget'), { retryAfterSeconds: 5 });

  it('asks again after the wait and returns what the read then gives', async () => {
    let tries = 0;
    const read = () =>
      ++tries === 1 ? Promise.reject(Object.assign(problem('upstream_busy', 'over budget'), { retryAfterSeconds: 0.05 })) : Promise.resolve('read');
    await expect(patiently(read)).resolves.toBe('read');
    expect(tries).toBe(2);
  });

  it('is cut short by a stop: the refusal in hand is thrown at once, not after the 5 s wait', async () => {
    const stop = new AbortController();
    const started = Date.now();
    setTimeout(() => stop.abort(), 50);
    await expect(patiently(() => Promise.reject(busy()), stop.signal)).rejects.toMatchObject({ code: 'upstream_busy' });
    expect(Date.now() - started).toBeLessThan(1_000);
  });
});
