import pino from 'pino';
import { Writable } from 'node:stream';
import { PeriodicTask } from '../../src/platform/periodic-task';
import { currentTill, TillWait, withTill } from '../../src/upstream/till';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function logCapture() {
  const lines: { msg: string; level: number }[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(JSON.parse(chunk.toString()) as { msg: string; level: number });
      done();
    },
  });
  return { logger: pino({ level: 'debug' }, stream), lines };
}

const messages = { failing: 'work failing', recovered: 'work recovered' };

describe('PeriodicTask, the timer of every background loop', () => {
  it("a pass woken by a request runs outside that request's till deadline", async () => {
    const { logger } = logCapture();
    let seen: (value: unknown) => void = () => undefined;
    const passRan = new Promise((resolve) => (seen = resolve));
    const task = new PeriodicTask({ everyMs: 60_000, logger, messages, pass: async () => seen(currentTill() ?? 'none') });
    task.start();
    const till = new TillWait(Date.now() + 5000, 5);
    withTill(till, () => task.wake());
    expect(await passRan).toBe('none');
    await task.stop();
  });

  it('runs a pass every interval, one at a time, and none after stop', async () => {
    const { logger } = logCapture();
    let passes = 0;
    let concurrent = 0;
    let most = 0;
    const task = new PeriodicTask({
      everyMs: 10,
      logger,
      messages,
      pass: async () => {
        concurrent += 1;
        most = Math.max(most, concurrent);
        passes += 1;
        await sleep(15);
        concurrent -= 1;
      },
    });
    task.start();
    await sleep(120);
    await task.stop();
    const atStop = passes;
    expect(atStop).toBeGreaterThanOrEqual(2);
    expect(most).toBe(1);
    await sleep(50);
    expect(passes).toBe(atStop);
  });

  it('starts the next pass at once when a pass says work is left, else waits the interval', async () => {
    const { logger } = logCapture();
    let left = 5;
    const at: number[] = [];
    const task = new PeriodicTask({
      everyMs: 10_000,
      logger,
      messages,
      pass: async () => {
        at.push(Date.now());
        left -= 1;
        return left > 0;
      },
    });
    task.start();
    task.wake();
    await sleep(100);
    await task.stop();
    expect(at).toHaveLength(5);
  });

  it('wake() during a pass runs another right after it', async () => {
    const { logger } = logCapture();
    let passes = 0;
    const task = new PeriodicTask({
      everyMs: 10_000,
      logger,
      messages,
      pass: async () => {
        passes += 1;
        if (passes === 1) {
          task.wake();
          await sleep(10);
        }
      },
    });
    task.start();
    task.wake();
    await sleep(80);
    await task.stop();
    expect(passes).toBe(2);
  });

  it('logs an outage once and its end once, and keeps running through it', async () => {
    const { logger, lines } = logCapture();
    let n = 0;
    const task = new PeriodicTask({
      everyMs: 5,
      logger,
      messages,
      pass: async () => {
        n += 1;
        if (n <= 4) throw Object.assign(new Error('store away'), { code: 'ECONNREFUSED' });
      },
    });
    task.start();
    await sleep(150);
    await task.stop();
    expect(n).toBeGreaterThan(5);
    expect(lines.filter((l) => l.msg === 'work failing')).toHaveLength(1);
    expect(lines.filter((l) => l.msg === 'work recovered')).toHaveLength(1);
  });

  it('keeps running when a pass throws before returning a promise, and again after a stop and a start', async () => {
    const { logger } = logCapture();
    let passes = 0;
    const task = new PeriodicTask({
      everyMs: 10,
      logger,
      messages,
      pass: () => {
        passes++;
        throw new Error('thrown at once');
      },
    });
    task.start();
    await sleep(80);
    expect(passes).toBeGreaterThan(2);
    await task.stop();
    const before = passes;
    task.start();
    await sleep(80);
    await task.stop();
    expect(passes).toBeGreaterThan(before);
  });

  it('stop() waits for the pass in hand', async () => {
    const { logger } = logCapture();
    let ended = false;
    const task = new PeriodicTask({
      everyMs: 1,
      logger,
      messages,
      pass: async () => {
        await sleep(40);
        ended = true;
      },
    });
    task.start();
    await sleep(10);
    await task.stop();
    expect(ended).toBe(true);
  });
});

describe('PeriodicTask started again while stopping', () => {
  it('never runs two passes at once', async () => {
    const { logger } = logCapture();
    let concurrent = 0;
    let most = 0;
    const task = new PeriodicTask({
      everyMs: 5,
      logger,
      messages,
      pass: async () => {
        concurrent += 1;
        most = Math.max(most, concurrent);
        await sleep(40);
        concurrent -= 1;
      },
    });
    task.start();
    await sleep(15);
    const stopping = task.stop();
    task.start();
    await stopping;
    await sleep(120);
    await task.stop();
    expect(most).toBe(1);
  });
});
