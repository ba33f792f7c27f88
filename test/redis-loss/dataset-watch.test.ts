import Redis from 'ioredis';
import { Writable } from 'node:stream';
import { createLogger } from '../../src/platform/logger';
import { DatasetWatch } from '../../src/platform/redis-dataset';

/** The marker check's edge cases, on the suite's real redis-server. */
function watchOn(redis: Redis, prefix: string) {
  const lines: { level: number; msg: string }[] = [];
  const sink = new Writable({
    write(chunk, _enc, cb) {
      for (const l of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(l));
      cb();
    },
  });
  const watch = new DatasetWatch({ redis, prefix, logger: createLogger({ level: 'debug', pretty: false, destination: sink }) });
  return { watch, lines, lossLines: () => lines.filter((l) => /Redis data set lost/.test(l.msg)) };
}

describe('the Redis data set marker', () => {
  let redis: Redis;
  beforeAll(() => {
    redis = new Redis(process.env.TEST_REDIS_URL as string);
  });
  afterAll(() => redis.disconnect());

  it("a marker it cannot read (another release's format) is replaced, not a crash at start-up", async () => {
    const prefix = `dsw${process.pid}a:`;
    await redis.set(`${prefix}dataset`, 'v0|not-json');
    const { watch, lossLines } = watchOn(redis, prefix);
    await watch.check();
    expect(JSON.parse((await redis.get(`${prefix}dataset`)) as string)).toMatchObject({ id: expect.any(String) });
    expect(lossLines()).toEqual([]);
  });

  it('a loss whose recording fails is still said at once, and said only once', async () => {
    const prefix = `dsw${process.pid}b:`;
    const { watch, lossLines } = watchOn(redis, prefix);
    await watch.check();
    await redis.del(`${prefix}dataset`);
    // The recorder's write fails (Redis flapping as it comes back): the loss must be said before it.
    const set = redis.set.bind(redis);
    let failed = 0;
    const spied = jest.spyOn(redis, 'set').mockImplementation(((...args: Parameters<Redis['set']>) => {
      if (String(args[0]).includes(':recorded:') && failed++ === 0) return Promise.reject(new Error('connection lost'));
      return (set as (...a: unknown[]) => unknown)(...args);
    }) as never);
    try {
      await expect(watch.check()).rejects.toThrow('connection lost');
      expect(lossLines()).toHaveLength(1);
      expect(watch.lastLoss).toBeDefined();
      await watch.check();
      expect(lossLines()).toHaveLength(1);
    } finally {
      spied.mockRestore();
    }
  });
});

describe('the first marker', () => {
  let redis: Redis;
  beforeAll(() => {
    redis = new Redis(process.env.TEST_REDIS_URL as string);
  });
  afterAll(() => redis.disconnect());

  it('on a data set an earlier release kept (keys of ours, no marker): written quietly, no warning of a loss', async () => {
    const prefix = `dsw${process.pid}c:`;
    await redis.set(`${prefix}sale:payment:P1`, '{"state":"recorded"}');
    const { watch, lines } = watchOn(redis, prefix);
    await watch.check();
    expect(lines.filter((l) => l.level >= 40)).toEqual([]);
    expect(lines.some((l) => /marker written beside the data already there/.test(l.msg))).toBe(true);
  });

  it('on an empty data set: a warning, since a loss while no instance ran looks the same', async () => {
    const prefix = `dsw${process.pid}d:`;
    const { watch, lines } = watchOn(redis, prefix);
    await watch.check();
    expect(lines.filter((l) => /Redis held no data set marker/.test(l.msg))).toEqual([expect.objectContaining({ level: 40 })]);
  });
});
