import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { ConfigError } from '../../../src/platform/config';
import { createLogger } from '../../../src/platform/logger';
import { addStore, addTerminal, loadTerminalsFile, revokeTerminal, TerminalRegistry, writeTerminalsFile } from '../../../src/pos/terminals';

const STORE = { id: 'store-a', merchant: { uniqueId: 'm-1', name: 'Acme' }, branch: { uniqueId: 'b-1', name: 'Harbour' } };

let dir: string;
let file: string;
let clock: number;
const now = () => clock;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'terminals-registry-'));
  file = path.join(dir, 'terminals.json');
  clock = 1_000_000;
  addStore(file, STORE);
});
afterEach(() => {
  jest.restoreAllMocks();
  rmSync(dir, { recursive: true, force: true });
});

/** The same token with its last character changed, so only the tail differs. */
const nearMiss = (token: string) => token.slice(0, -1) + (token.endsWith('A') ? 'B' : 'A');

describe('TerminalRegistry', () => {
  it('knows a terminal by its token and gives its store', () => {
    const { terminal, token } = addTerminal(file, { storeId: 'store-a', role: 'cashier' });
    const identity = new TerminalRegistry(file).authenticate(token);
    expect(identity).toEqual({ terminal, store: STORE });
    expect(Object.isFrozen(identity?.store.merchant)).toBe(true);
  });

  it('refuses near misses, prefixes, other formats and empty tokens', () => {
    const { token } = addTerminal(file, { storeId: 'store-a', role: 'cashier' });
    const registry = new TerminalRegistry(file);
    for (const wrong of [nearMiss(token), token.slice(0, -1), `${token}x`, token.slice(4), '', 'pos_', 'x'.repeat(5000), token.toUpperCase()]) {
      expect(registry.verify(wrong)).toEqual({ ok: false, reason: 'unknown_token' });
    }
  });

  it('decides with one constant-time comparison of 32-byte digests, hit or miss', () => {
    const { token } = addTerminal(file, { storeId: 'store-a', role: 'cashier' });
    const registry = new TerminalRegistry(file);
    // The module object itself (an ES namespace import would be a copy the spy cannot reach).
    const spy = jest.spyOn(process.getBuiltinModule('node:crypto'), 'timingSafeEqual');
    expect(registry.authenticate(token)).not.toBeNull();
    expect(registry.authenticate(nearMiss(token))).toBeNull();
    expect(registry.authenticate('short')).toBeNull();
    expect(spy).toHaveBeenCalledTimes(3);
    for (const [a, b] of spy.mock.calls) {
      expect((a as Buffer).length).toBe(32);
      expect((b as Buffer).length).toBe(32);
    }
    expect(spy.mock.results.map((r) => r.value)).toEqual([true, false, false]);
  });

  it('refuses a revoked terminal and one whose store is gone', () => {
    const revoked = addTerminal(file, { storeId: 'store-a', role: 'cashier' });
    revokeTerminal(file, revoked.terminal.id);
    const orphan = addTerminal(file, { storeId: 'store-a', role: 'cashier' });
    const data = loadTerminalsFile(file);
    writeTerminalsFile(file, { stores: [], terminals: data.terminals });
    const registry = new TerminalRegistry(file);
    expect(registry.verify(revoked.token)).toEqual({ ok: false, reason: 'revoked', terminalId: revoked.terminal.id });
    expect(registry.verify(orphan.token)).toEqual({ ok: false, reason: 'store_missing', terminalId: orphan.terminal.id });
    expect(registry.authenticate(orphan.token)).toBeNull();
  });

  it('picks up a revoke from the file at its next check, without a restart', () => {
    const { terminal, token } = addTerminal(file, { storeId: 'store-a', role: 'cashier' });
    const registry = new TerminalRegistry(file, { now, checkIntervalMs: 1000 });
    expect(registry.authenticate(token)).not.toBeNull();
    revokeTerminal(file, terminal.id);
    clock += 999; // the file is looked at no more than once per interval
    expect(registry.authenticate(token)).not.toBeNull();
    clock += 1;
    expect(registry.authenticate(token)).toBeNull();
  });

  it('picks up a new terminal, and reload() applies a change at once', () => {
    const registry = new TerminalRegistry(file, { now });
    const added = addTerminal(file, { storeId: 'store-a', role: 'manager' });
    expect(registry.authenticate(added.token)).toBeNull();
    registry.reload();
    expect(registry.authenticate(added.token)?.terminal.role).toBe('manager');
    expect(registry.terminalCount).toBe(1);
  });

  it('will not start on a corrupt file, naming the bad field', () => {
    const { terminal } = addTerminal(file, { storeId: 'store-a', role: 'cashier' });
    writeFileSync(file, JSON.stringify({ stores: [STORE], terminals: [{ ...terminal, tokenSha256: 'nothex' }] }));
    expect(() => new TerminalRegistry(file)).toThrow(ConfigError);
    expect(() => new TerminalRegistry(file)).toThrow(/terminals\.0\.tokenSha256: must be 64 lowercase hex/);
  });

  it('starts empty on a missing file (a fresh install) and serves the file once it appears', () => {
    let now = 0;
    const file = path.join(dir, 'appears-later.json');
    const registry = new TerminalRegistry(file, { now: () => now });
    expect(registry.activeTerminals()).toBe(0);
    addStore(file, { id: 'store-001', merchant: { uniqueId: 'm-1', name: 'Retail' }, branch: { uniqueId: 'b-1', name: 'Main' } });
    const { token } = addTerminal(file, { storeId: 'store-001', role: 'cashier' });
    now += 1000;
    expect(registry.activeTerminals()).toBe(1);
    expect(registry.authenticate(token)?.store.id).toBe('store-001');
  });

  it('keeps the last good terminals when the file turns bad, logs it once, and recovers', () => {
    const lines: string[] = [];
    const destination = new Writable({
      write(chunk, _enc, cb) {
        lines.push(String(chunk));
        cb();
      },
    });
    const logger = createLogger({ level: 'info', pretty: false, destination });
    const { token } = addTerminal(file, { storeId: 'store-a', role: 'cashier' });
    let failures = 0;
    const registry = new TerminalRegistry(file, { now, logger, onReloadFailure: () => failures++ });
    expect(registry.fileState()).toEqual({ current: true });
    writeFileSync(file, '{ "stores": ');
    clock += 1000;
    expect(registry.authenticate(token)).not.toBeNull();
    clock += 1000;
    expect(registry.authenticate(token)).not.toBeNull();
    clock += 1000;
    expect(registry.fileState()).toMatchObject({ current: false, problem: expect.stringMatching(/not valid JSON/) });
    const errors = lines.map((l) => JSON.parse(l)).filter((l) => l.level === 50);
    expect(errors).toHaveLength(1);
    expect(errors[0].problem).toMatch(/not valid JSON/);
    expect(failures).toBe(1);

    const later = addStore(path.join(dir, 'other.json'), STORE) && addTerminal(path.join(dir, 'other.json'), { storeId: 'store-a', role: 'kiosk' });
    writeTerminalsFile(file, loadTerminalsFile(path.join(dir, 'other.json')));
    clock += 1000;
    expect(registry.authenticate(token)).toBeNull();
    expect(registry.authenticate(later.token)?.terminal.role).toBe('kiosk');
    expect(registry.fileState()).toEqual({ current: true });
    expect(lines.join('')).not.toContain(token);
  });

  it('a file deleted after it was loaded is not current (its terminals kept); a fresh install without one is', () => {
    let now = 0;
    let failures = 0;
    const fresh = new TerminalRegistry(path.join(dir, 'never-there.json'), { now: () => now, onReloadFailure: () => failures++ });
    now += 1000;
    expect(fresh.fileState()).toEqual({ current: true });
    const registry = new TerminalRegistry(file, { now: () => now, onReloadFailure: () => failures++ });
    rmSync(file);
    now += 1000;
    expect(registry.fileState()).toMatchObject({ current: false });
    now += 1000;
    registry.fileState();
    expect(failures).toBe(1);
  });
});
