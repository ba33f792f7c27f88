import pino from 'pino';
import { RepairQueue } from '../../../src/pos/money/repairs';

const logger = pino({ level: 'silent' });
const notYet = () => Promise.reject(new Error('not on the record yet'));

it('tries a repair until it settles, and drops one that cannot settle past its until (its claim stands)', async () => {
  const q = new RepairQueue({ intervalMs: 1, logger });
  let tries = 0;
  q.add({ key: 'settles', settle: async () => (++tries >= 2 ? 'recorded' : notYet()) });
  q.add({ key: 'forever', settle: notYet });
  q.add({ key: 'bounded', settle: notYet, until: Date.now() - 1 });
  expect(q.size).toBe(3);
  expect(await q.runOnce()).toBe(0);
  // The bounded one is gone after its first failed try past its time; the others are kept.
  expect(q.size).toBe(2);
  await new Promise((r) => setTimeout(r, 5));
  expect(await q.runOnce()).toBe(1);
  expect(q.size).toBe(1);
});
