import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ConflictError, NotFoundError } from '../../../src/platform/errors';
import { addStore, addTerminal, loadTerminalsFile, revokeTerminal, TerminalRegistry, writeTerminalsFile } from '../../../src/pos/terminals';
import { raiseGeneration } from '../../../src/pos/terminals/file';
import { exportCsv, importCsv, ImportRefused, type NewToken } from '../../../src/pos/terminals/csv';
import { editStore, listTerminals, removeStore, rotateTerminal } from '../../../src/pos/terminals/operations';

const STORE = { id: 'store-a', merchant: { uniqueId: 'm-1', name: 'Acme' }, branch: { uniqueId: 'b-1', name: 'Harbour' } };

let dir: string;
let file: string;
let clock: number;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'terminals-fleet-ops-'));
  file = path.join(dir, 'terminals.json');
  clock = Date.parse('2026-03-01T10:00:00Z');
  addStore(file, STORE);
  raiseGeneration(file, 0); // as a fleet's first publish does
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const generation = () => loadTerminalsFile(file).generation;

describe('generation', () => {
  it('rises by one with every change written, and not for a change that changes nothing', () => {
    expect(generation()).toBe(1);
    addTerminal(file, { storeId: 'store-a', role: 'cashier', id: 't1' });
    expect(generation()).toBe(2);
    revokeTerminal(file, 't1');
    expect(generation()).toBe(3);
    revokeTerminal(file, 't1'); // already revoked: nothing written
    expect(generation()).toBe(3);
  });

  it('stays absent from a file without one (the single-instance default, files written before): read as 0, never added', () => {
    const old = loadTerminalsFile(file);
    delete old.generation;
    writeFileSync(file, JSON.stringify(old));
    const registry = new TerminalRegistry(file);
    expect(registry.generation).toBe(0);
    const { token } = addTerminal(file, { storeId: 'store-a', role: 'cashier', id: 't1' });
    revokeTerminal(file, 't1');
    // The shape a previous release reads: a rolling upgrade shares this file with it.
    expect(Object.keys(JSON.parse(readFileSync(file, 'utf8')))).toEqual(['stores', 'terminals']);
    expect(new TerminalRegistry(file).verify(token)).toMatchObject({ reason: 'revoked' });
  });
});

describe('rotate', () => {
  it('keeps the old token until the grace ends, then refuses it as rotated out; the new one works throughout', () => {
    const { token: old } = addTerminal(file, { storeId: 'store-a', role: 'cashier', id: 't1' });
    const { token, previousValidUntil } = rotateTerminal(file, 't1', 60_000, { now: () => new Date(clock) });
    expect(previousValidUntil).toBe('2026-03-01T10:01:00.000Z');
    expect(readFileSync(file, 'utf8')).not.toContain(token);
    const registry = new TerminalRegistry(file, { now: () => clock });
    expect(registry.verify(old)).toMatchObject({ ok: true });
    expect(registry.verify(token)).toMatchObject({ ok: true });
    clock += 59_999;
    expect(registry.verify(old)).toMatchObject({ ok: true });
    clock += 1;
    expect(registry.verify(old)).toEqual({ ok: false, reason: 'token_rotated_out', terminalId: 't1' });
    expect(registry.verify(token)).toMatchObject({ ok: true });
  });

  it('with no grace refuses the old token at once; a second rotation drops the first old token; a revoked terminal is refused', () => {
    const { token: first } = addTerminal(file, { storeId: 'store-a', role: 'cashier', id: 't1' });
    const { token: second } = rotateTerminal(file, 't1', 0);
    expect(new TerminalRegistry(file).verify(first)).toEqual({ ok: false, reason: 'unknown_token' });
    rotateTerminal(file, 't1', 3_600_000);
    const third = rotateTerminal(file, 't1', 3_600_000).token;
    const registry = new TerminalRegistry(file);
    expect(registry.verify(second)).toEqual({ ok: false, reason: 'unknown_token' });
    expect(registry.verify(third)).toMatchObject({ ok: true });
    revokeTerminal(file, 't1');
    expect(loadTerminalsFile(file).terminals[0]).not.toHaveProperty('previousTokenSha256');
    expect(() => rotateTerminal(file, 't1', 0)).toThrow(ConflictError);
    expect(() => rotateTerminal(file, 'ghost', 0)).toThrow(NotFoundError);
  });

  it('refuses a file where a rotated-out hash is another terminal token', () => {
    addTerminal(file, { storeId: 'store-a', role: 'cashier', id: 't1' });
    addTerminal(file, { storeId: 'store-a', role: 'cashier', id: 't2' });
    const data = loadTerminalsFile(file);
    data.terminals[0].previousTokenSha256 = data.terminals[1].tokenSha256;
    data.terminals[0].previousValidUntil = '2030-01-01T00:00:00Z';
    expect(() => writeTerminalsFile(file, data)).toThrow(/terminals\.1: duplicate tokenSha256/);
  });
});

describe('stores', () => {
  it('edits a store, and takes an own value away with null', () => {
    editStore(file, 'store-a', { branchName: 'Quay', requireCashier: true, tillWaitSeconds: 20 });
    expect(loadTerminalsFile(file).stores[0]).toEqual({ ...STORE, branch: { uniqueId: 'b-1', name: 'Quay' }, requireCashier: true, tillWaitSeconds: 20 });
    editStore(file, 'store-a', { requireCashier: null, tillWaitSeconds: null });
    expect(loadTerminalsFile(file).stores[0]).toEqual({ ...STORE, branch: { uniqueId: 'b-1', name: 'Quay' } });
    expect(() => editStore(file, 'store-a', { tillWaitSeconds: 500 })).toThrow(/tillWaitSeconds/);
    expect(() => editStore(file, 'nowhere', { branchName: 'x' })).toThrow(NotFoundError);
  });

  it('refuses to remove a store with terminals not revoked, unless told to revoke them with it', () => {
    addTerminal(file, { storeId: 'store-a', role: 'cashier', id: 't1' });
    addTerminal(file, { storeId: 'store-a', role: 'cashier', id: 't2' });
    revokeTerminal(file, 't2');
    expect(() => removeStore(file, 'store-a')).toThrow(/1 terminal\(s\) not revoked \(t1\)/);
    expect(loadTerminalsFile(file).stores).toHaveLength(1);
    expect(removeStore(file, 'store-a', { revokeTerminals: true }).revoked).toEqual(['t1']);
    expect(loadTerminalsFile(file).stores).toEqual([]);
    expect(listTerminals(file, { status: 'revoked' }).map((t) => t.id)).toEqual(['t1', 't2']);
  });
});

describe('import', () => {
  const header = 'id,store_id,role,label';
  let delivered: NewToken[][];
  const deliver = (t: NewToken[]) => void delivered.push(t);
  beforeEach(() => (delivered = []));

  it('adds 1,000 terminals and their stores in one change; a second run of the same import is a no-op with no token', () => {
    const stores = { name: 'stores.csv', text: 'id,merchant_id,merchant_name,branch_id,branch_name,require_cashier\nstore-b,m-1,Acme,b-2,Pier,true\n' };
    const rows = Array.from({ length: 1000 }, (_, i) => `t-${i},${i % 2 ? 'store-a' : 'store-b'},cashier,till ${i}`);
    const terminals = { name: 'terminals.csv', text: [header, ...rows].join('\n') };
    const before = generation() ?? 0;
    const outcome = importCsv(file, [terminals, stores], deliver);
    expect([outcome.storesAdded, outcome.terminalsAdded.length]).toEqual([['store-b'], 1000]);
    expect(generation()).toBe(before + 1);
    expect(delivered[0]).toHaveLength(1000);
    const registry = new TerminalRegistry(file);
    expect(registry.authenticate(delivered[0][999].token)?.terminal).toMatchObject({ id: 't-999', storeId: 'store-a', label: 'till 999' });
    expect(registry.authenticate(delivered[0][0].token)?.store).toMatchObject({ id: 'store-b', requireCashier: true });

    const again = importCsv(file, [terminals, stores], deliver);
    expect([again.terminalsAdded.length, again.terminalsUnchanged.length, again.storesUnchanged]).toEqual([0, 1000, ['store-b']]);
    expect(delivered).toHaveLength(1);
    expect(generation()).toBe(before + 1);
  });

  it('reports every bad row with its line and writes nothing', () => {
    addTerminal(file, { storeId: 'store-a', role: 'manager', id: 'taken' });
    const before = readFileSync(file, 'utf8');
    const text = [
      header,
      'ok-1,store-a,cashier,',
      'bad id,store-a,cashier,',
      'ok-2,store-z,cashier,',
      'ok-3,store-a,boss,',
      'ok-1,store-a,cashier,',
      'taken,store-a,cashier,',
    ].join('\n');
    let refused: ImportRefused | undefined;
    try {
      importCsv(file, [{ name: 'in.csv', text }], deliver);
    } catch (err) {
      refused = err as ImportRefused;
    }
    expect(refused).toBeInstanceOf(ImportRefused);
    expect(refused!.problems).toEqual([
      'in.csv line 3: id: must be 1-64 letters, digits, ".", "_" or "-", starting with a letter or digit',
      'in.csv line 4: store_id: store "store-z" does not exist (add it, or import it in the same command)',
      'in.csv line 5: role: must be one of cashier, manager, kiosk',
      'in.csv line 6: terminal "ok-1" is also on in.csv line 2',
      'in.csv line 7: terminal "taken" already exists with another store, role or label',
    ]);
    expect(readFileSync(file, 'utf8')).toBe(before);
    expect(delivered).toEqual([]);
  });

  it('names an unknown or missing column, and a token delivery that fails writes nothing', () => {
    expect(() => importCsv(file, [{ name: 'x.csv', text: 'id,store_id,role,token\n' }], deliver)).toThrow(/x\.csv line 1: unknown column\(s\) token/);
    expect(() => importCsv(file, [{ name: 'y.csv', text: 'id,merchant_id\n' }], deliver)).toThrow(
      /y\.csv line 1: missing column\(s\) merchant_name, branch_id, branch_name/,
    );
    const before = readFileSync(file, 'utf8');
    const failing = () => {
      throw new Error('disk full');
    };
    expect(() => importCsv(file, [{ name: 'z.csv', text: `${header}\nt-1,store-a,cashier,\n` }], failing)).toThrow('disk full');
    expect(readFileSync(file, 'utf8')).toBe(before);
  });

  it('exports stores and terminals as CSV without a token or hash', () => {
    const { terminal } = addTerminal(file, { storeId: 'store-a', role: 'kiosk', id: 'k1', label: 'door, left' });
    const data = loadTerminalsFile(file);
    const terminals = exportCsv(data, 'terminals');
    expect(terminals).toMatch(/^id,store_id,role,label,status,created_at,revoked_at,previous_valid_until\nk1,store-a,kiosk,"door, left",active,/);
    expect(terminals).not.toContain(terminal.tokenSha256.slice(0, 16));
    expect(exportCsv(data, 'stores')).toBe(
      'id,merchant_id,merchant_name,branch_id,branch_name,require_cashier,till_wait_seconds\nstore-a,m-1,Acme,b-1,Harbour,,\n',
    );
    expect(existsSync(file)).toBe(true);
  });
});
