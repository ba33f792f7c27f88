import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { createLogger } from '../../../src/platform/logger';
import { connectRedis, type Redis } from '../../../src/platform/redis';
import { silentLogger } from '../../../src/platform/logger';
import { addStore, addTerminal, loadTerminalsFile, revokeTerminal, TerminalRegistry } from '../../../src/pos/terminals';
import { raiseGeneration } from '../../../src/pos/terminals/file';
import { RegistrySync } from '../../../src/pos/terminals/fleet-sync';
import { publishRegistry, registryKey, sharedGeneration } from '../../../src/pos/terminals/shared';
import { deleteKeys, testRedis, uniquePrefix } from '../../support/redis';
import { freePort } from '../../support/ports';
import { waitFor } from '../../e2e/helpers';

/**
 * TERMINALS_SHARED=redis over a real Redis: instances whose hosts have no terminals file take the registry the
 * CLI published, keep serving it when Redis loses it, write it back, and never put an older generation over a newer.
 */
const STORE = { id: 'store-a', merchant: { uniqueId: 'm-1', name: 'Acme' }, branch: { uniqueId: 'b-1', name: 'Harbour' } };

let redis: Redis;
let prefix: string;
let dir: string;
let file: string;
const connections: Redis[] = [];
beforeAll(async () => {
  redis = await testRedis();
});
afterAll(async () => {
  for (const c of connections) c.disconnect();
  redis.disconnect();
});
beforeEach(() => {
  prefix = uniquePrefix('terminals');
  dir = mkdtempSync(path.join(os.tmpdir(), 'terminals-fleet-'));
  file = path.join(dir, 'operator', 'terminals.json');
  addStore(file, STORE);
  raiseGeneration(file, 0); // as the CLI's first publish does
});
afterEach(async () => {
  await deleteKeys(redis, prefix);
  rmSync(dir, { recursive: true, force: true });
});

/** An instance on a host of its own: no terminals file there, its own Redis connection, its log kept. */
async function instance(name: string) {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk, _enc, cb) {
      lines.push(
        ...String(chunk)
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l)),
      );
      cb();
    },
  });
  const logger = createLogger({ level: 'info', pretty: false, destination });
  const registry = new TerminalRegistry(path.join(dir, name, 'terminals.json'), { shared: true, logger });
  const conn = await testRedis();
  connections.push(conn);
  const reseeds: string[] = [];
  const sync = new RegistrySync({ registry, redis: conn, prefix, logger, onReseed: (r) => reseeds.push(r) });
  return { registry, sync, lines, reseeds };
}

const publish = () => publishRegistry(redis, prefix, loadTerminalsFile(file));

describe('the shared terminals registry', () => {
  it('never takes an older generation over a newer one (the script decides, not the caller)', async () => {
    addTerminal(file, { storeId: 'store-a', role: 'cashier', id: 't1' });
    const newer = loadTerminalsFile(file);
    expect(await publishRegistry(redis, prefix, newer)).toEqual({ published: true, generation: 2 });
    expect(await publishRegistry(redis, prefix, { ...newer, generation: 1 })).toEqual({ published: false, generation: 2 });
    expect(await publishRegistry(redis, prefix, newer)).toEqual({ published: false, generation: 2 });
    expect(await sharedGeneration(redis, prefix)).toBe(2);
  });

  it('reaches instances that have no file, and a revocation published reaches both', async () => {
    const { token } = addTerminal(file, { storeId: 'store-a', role: 'cashier', id: 't1' });
    const a = await instance('a');
    const b = await instance('b');
    await a.sync.check();
    expect(a.registry.generation).toBe(-1); // nothing anywhere yet: no terminal can call
    expect(a.registry.activeTerminals()).toBe(0);
    expect(await sharedGeneration(redis, prefix)).toBeUndefined(); // and an instance with nothing never writes
    await publish();
    await Promise.all([a.sync.check(), b.sync.check()]);
    for (const i of [a, b]) expect(i.registry.verify(token)).toMatchObject({ ok: true });

    revokeTerminal(file, 't1');
    await publish();
    await Promise.all([a.sync.check(), b.sync.check()]);
    for (const i of [a, b]) expect(i.registry.verify(token)).toEqual({ ok: false, reason: 'revoked', terminalId: 't1' });
    expect(a.registry.snapshot()).toEqual(loadTerminalsFile(file));
  });

  it('on its own timer, takes a revocation within 2 s of its publish (it looks every 500 ms)', async () => {
    const { token } = addTerminal(file, { storeId: 'store-a', role: 'cashier', id: 't1' });
    await publish();
    const a = await instance('a');
    await a.sync.check();
    a.sync.start();
    try {
      revokeTerminal(file, 't1');
      const published = Date.now();
      await publish();
      await waitFor('the revocation taken', () => a.registry.verify(token).ok === false, 20_000);
      expect(Date.now() - published).toBeLessThan(2000);
    } finally {
      await a.sync.stop();
    }
  });

  it('keeps serving when Redis loses the registry, says so once, and one instance writes it back', async () => {
    const { token } = addTerminal(file, { storeId: 'store-a', role: 'cashier', id: 't1' });
    await publish();
    const a = await instance('a');
    const b = await instance('b');
    await Promise.all([a.sync.check(), b.sync.check()]);
    await redis.del(registryKey(prefix)); // what a FLUSHALL or a failover to an empty replica leaves
    await a.sync.check();
    await a.sync.check();
    expect(a.reseeds).toEqual(['missing']);
    expect(
      a.lines.filter((l) => l.msg === 'terminals registry missing in Redis; serving the terminals this instance holds and writing them back'),
    ).toHaveLength(1);
    expect(a.registry.verify(token)).toMatchObject({ ok: true });
    expect(await sharedGeneration(redis, prefix)).toBe(loadTerminalsFile(file).generation);
    await b.sync.check();
    expect(b.reseeds).toEqual([]); // it found the registry back in step
    expect(a.sync.state).toBe('in_step');
  });

  it('writes its newer copy back over an older one (a failover lost the last publish), and takes a newer one instead of writing', async () => {
    const { token } = addTerminal(file, { storeId: 'store-a', role: 'cashier', id: 't1' });
    const older = loadTerminalsFile(file);
    revokeTerminal(file, 't1');
    await publish();
    const a = await instance('a');
    await a.sync.check();
    // The replica promoted had only the older generation: t1 not revoked there.
    await redis.del(registryKey(prefix));
    await publishRegistry(redis, prefix, older);
    const late = await instance('late'); // started meanwhile: knows only what Redis holds
    await late.sync.check();
    expect(late.registry.verify(token)).toMatchObject({ ok: true });
    await a.sync.check();
    expect(a.reseeds).toEqual(['behind']);
    expect(await sharedGeneration(redis, prefix)).toBe(loadTerminalsFile(file).generation);
    await late.sync.check();
    expect(late.registry.verify(token)).toMatchObject({ ok: false, reason: 'revoked' });
    expect(late.reseeds).toEqual([]);
  });

  it('takes a newer generation from the file on its own host, and never an older one from it', async () => {
    const { token } = addTerminal(file, { storeId: 'store-a', role: 'cashier', id: 't1' });
    revokeTerminal(file, 't1');
    await publish();
    // A host whose file copy is older than what the fleet serves.
    const hostFile = path.join(dir, 'h', 'terminals.json');
    addStore(hostFile, STORE);
    raiseGeneration(hostFile, 0);
    const registry = new TerminalRegistry(hostFile, { shared: true, checkIntervalMs: 0 });
    const sync = new RegistrySync({ registry, redis, prefix, logger: silentLogger });
    await sync.check();
    expect(registry.generation).toBe(loadTerminalsFile(file).generation);
    addTerminal(hostFile, { storeId: 'store-a', role: 'kiosk', id: 'k1' }); // generation 2 there, 3 in Redis
    expect(registry.verify(token)).toMatchObject({ reason: 'revoked' });
    expect(registry.terminalCount).toBe(1);
    // The host's file moves past Redis (generation 4): taken, and written to Redis for the fleet.
    const { token: k2 } = addTerminal(hostFile, { storeId: 'store-a', role: 'kiosk', id: 'k2' });
    await sync.check();
    expect(registry.verify(k2)).toMatchObject({ ok: false }); // generation 3 there: not past Redis's 3
    addTerminal(hostFile, { storeId: 'store-a', role: 'kiosk', id: 'k3' });
    await sync.check();
    expect(registry.verify(k2)).toMatchObject({ ok: true });
    expect(await sharedGeneration(redis, prefix)).toBe(4);
  });

  it('keeps serving while Redis cannot be read, and says so', async () => {
    const { token } = addTerminal(file, { storeId: 'store-a', role: 'cashier', id: 't1' });
    const a = await instance('a');
    await publish();
    await a.sync.check();
    const gone = connectRedis(`redis://127.0.0.1:${await freePort()}`, silentLogger, { lazy: true, retryMaxMs: 50 });
    connections.push(gone);
    const said: string[] = [];
    const destination = new Writable({
      write(chunk, _enc, cb) {
        said.push(String(chunk));
        cb();
      },
    });
    const cut = new RegistrySync({ registry: a.registry, redis: gone, prefix, logger: createLogger({ level: 'info', pretty: false, destination }) });
    await cut.check();
    await cut.check();
    expect(cut.state).toBe('unreachable');
    expect(said.filter((l) => l.includes('Redis cannot be read; serving the terminals this instance holds'))).toHaveLength(1);
    expect(a.registry.verify(token)).toMatchObject({ ok: true });
  });
});
