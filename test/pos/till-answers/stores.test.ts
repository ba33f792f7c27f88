import type { Redis } from '../../../src/platform/redis';
import { MemoryTillAnswerStore, RedisTillAnswerStore, type TillAnswerStore } from '../../../src/pos/till-answers';
import { deleteKeys, testRedis, uniquePrefix } from '../../support/redis';

const DAY = 24 * 3600_000;
const response = { status: 201, contentType: 'application/json; charset=utf-8', body: '{"ok":true}' };

/** The same rules for both stores: the Redis one (real redis-server) and the in-process one. */
describe.each(['redis', 'memory'] as const)('the %s till-answer store', (kind) => {
  let redis: Redis | undefined;
  let prefix: string;
  let store: TillAnswerStore;

  beforeAll(async () => {
    if (kind === 'redis') redis = await testRedis();
  });
  afterAll(async () => {
    await redis?.quit();
  });
  beforeEach(() => {
    prefix = uniquePrefix('till-answers');
    store = redis ? new RedisTillAnswerStore(redis, prefix) : new MemoryTillAnswerStore();
  });
  afterEach(async () => {
    if (redis) await deleteKeys(redis, prefix);
  });

  it('an answer opened again under the same id starts over: no earlier response or fate survives', async () => {
    await store.open({ terminalId: 't-1', requestId: 'a-1', key: 'k-1', createdAt: 1000 }, DAY);
    await store.settle('t-1', 'a-1', response);
    expect(await store.decide('t-1', 'a-1', 'released')).toBe('released');

    await store.open({ terminalId: 't-1', requestId: 'a-1', key: 'k-2', createdAt: 2000 }, DAY);
    expect(await store.get('t-1', 'a-1')).toEqual({ requestId: 'a-1', terminalId: 't-1', createdAt: 2000 });
    expect(await store.decide('t-1', 'a-1', 'till')).toBe('till');
    expect(await store.byKey('t-1', 'k-2')).toBe('a-1');
  });

  it('answers are per terminal, settled once opened, and the first fate holds', async () => {
    await store.open({ terminalId: 't-1', requestId: 'a-2', createdAt: 1000 }, DAY);
    expect(await store.get('t-2', 'a-2')).toBeUndefined();
    await store.settle('t-2', 'a-2', response);
    expect(await store.get('t-2', 'a-2')).toBeUndefined();
    await store.settle('t-1', 'a-2', response);
    expect((await store.get('t-1', 'a-2'))?.response).toEqual(response);
    expect(await store.decide('t-1', 'a-2', 'till')).toBe('till');
    expect(await store.decide('t-1', 'a-2', 'released')).toBe('till');
    expect(await store.decide('t-1', 'no-such', 'till')).toBeUndefined();
  });
});
