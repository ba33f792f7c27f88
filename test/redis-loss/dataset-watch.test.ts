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
