import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ConflictError, NotFoundError } from '../../../src/platform/errors';
import { addStore, addTerminal, loadTerminalsFile, revokeTerminal, TerminalRegistry, writeTerminalsFile } from '../../../src/pos/terminals';
import { raiseGeneration } from '../../../src/pos/terminals/file';
import { exportCsv, importCsv, ImportRefused, type NewToken } from '../../../src/pos/terminals/csv';
import { editStore, listTerminals, removeStore, rotateTerminal } from '../../../src/pos/terminals/operations';
import type { Store } from '../../../src/pos/terminals/types';

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

  it('sets and takes away stand-in values one by one, keeping the others; with none left, no standIn at all', () => {
    editStore(file, 'store-a', { standIn: { mode: 'on', maxPointsPerCustomer: 100 } });
    editStore(file, 'store-a', { standIn: { maxPointsPerCustomer: null, seenMinutes: 5 } });
    expect(loadTerminalsFile(file).stores[0].standIn).toEqual({ mode: 'on', seenMinutes: 5 });
    expect(() => editStore(file, 'store-a', { standIn: { seenMinutes: 0 } })).toThrow(/standIn\.seenMinutes/);
    expect(loadTerminalsFile(file).stores[0].standIn).toEqual({ mode: 'on', seenMinutes: 5 });
    editStore(file, 'store-a', { standIn: { mode: null, seenMinutes: null } });
    expect(loadTerminalsFile(file).stores[0]).toEqual(STORE);
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
      'id,merchant_id,merchant_name,branch_id,branch_name,require_cashier,till_wait_seconds,redemption_cap_points_per_customer_day,' +
        'stand_in,stand_in_after_seconds,stand_in_seen_minutes,stand_in_max_points_per_customer,stand_in_max_points_per_store,' +
        'stand_in_approval_minutes\nstore-a,m-1,Acme,b-1,Harbour,,,,,,,,,\n',
    );
    expect(existsSync(file)).toBe(true);
  });
});

describe("stores CSV: a store's own redemption cap and stand-in values", () => {
  const OLD_HEADER = 'id,merchant_id,merchant_name,branch_id,branch_name,require_cashier,till_wait_seconds';
  const HEADER = `${OLD_HEADER},redemption_cap_points_per_customer_day,stand_in,stand_in_after_seconds,stand_in_seen_minutes,stand_in_max_points_per_customer,stand_in_max_points_per_store,stand_in_approval_minutes`;
  const deliver = () => undefined;
  const refusal = (fn: () => unknown): string[] => {
    try {
      fn();
    } catch (err) {
      if (err instanceof ImportRefused) return err.problems;
      throw err;
    }
    throw new Error('the import was not refused');
  };
  // Every override, zeros included (0 is a value of its own: no cap, no stand-in without approval), and a store
  // that overrides some stand-in values only.
  const OVERRIDES: Store = {
    ...STORE,
    requireCashier: false,
    tillWaitSeconds: 20,
    redemptionCapPointsPerCustomerDay: 0,
    standIn: { mode: 'on', afterSeconds: 0, seenMinutes: 1440, maxPointsPerCustomer: 0, maxPointsPerStore: 12000, approvalMinutes: 60 },
  };
  const PARTIAL: Store = {
    id: 'store-b',
    merchant: { uniqueId: 'm-1', name: 'Acme' },
    branch: { uniqueId: 'b-2', name: 'Pier, east' },
    redemptionCapPointsPerCustomerDay: 500,
    standIn: { mode: 'off', approvalMinutes: 2 },
  };
  const PLAIN: Store = { id: 'store-c', merchant: { uniqueId: 'm-1', name: 'Acme' }, branch: { uniqueId: 'b-3', name: 'Station' } };

  beforeEach(() => writeTerminalsFile(file, { stores: [OVERRIDES, PARTIAL, PLAIN], terminals: [] }));

  it('round trip: an export imported into an empty file gives back the same stores, and imported again changes nothing', () => {
    const exported = exportCsv(loadTerminalsFile(file), 'stores');
    expect(exported.split('\n')).toEqual([
      HEADER,
      'store-a,m-1,Acme,b-1,Harbour,false,20,0,on,0,1440,0,12000,60',
      'store-b,m-1,Acme,b-2,"Pier, east",,,500,off,,,,,2',
      'store-c,m-1,Acme,b-3,Station,,,,,,,,,',
      '',
    ]);
    const other = path.join(dir, 'other.json');
    const outcome = importCsv(other, [{ name: 'stores.csv', text: exported }], deliver);
    expect(outcome.storesAdded).toEqual(['store-a', 'store-b', 'store-c']);
    expect(loadTerminalsFile(other).stores).toEqual([OVERRIDES, PARTIAL, PLAIN]);
    const before = readFileSync(other, 'utf8');
    expect(importCsv(other, [{ name: 'stores.csv', text: exported }], deliver).storesUnchanged).toEqual(['store-a', 'store-b', 'store-c']);
    expect(readFileSync(other, 'utf8')).toBe(before);
  });

  it('compares an existing store by its row alone: kioskEvents (no column) and an empty standIn do not make it differ', () => {
    writeTerminalsFile(file, { stores: [{ ...PLAIN, kioskEvents: ['store_visit'], standIn: {} }], terminals: [] });
    const before = readFileSync(file, 'utf8');
    const exported = exportCsv(loadTerminalsFile(file), 'stores');
    expect(importCsv(file, [{ name: 'stores.csv', text: exported }], deliver).storesUnchanged).toEqual(['store-c']);
    expect(readFileSync(file, 'utf8')).toBe(before);
  });

  it('exports a name a spreadsheet would run as a formula with a leading quote, and imports it back as it was', () => {
    const formula: Store = {
      ...PLAIN,
      merchant: { uniqueId: '=m-1', name: '=HYPERLINK("http://x")' },
      branch: { uniqueId: '@b-3', name: '-Station+1' },
    };
    writeTerminalsFile(file, { stores: [formula], terminals: [] });
    addTerminal(file, { storeId: 'store-c', role: 'cashier', id: 'till-f', label: '+till' });
    const stores = exportCsv(loadTerminalsFile(file), 'stores');
    const terminals = exportCsv(loadTerminalsFile(file), 'terminals');
    expect(stores.split('\n')[1]).toBe(`store-c,'=m-1,"'=HYPERLINK(""http://x"")",'@b-3,'-Station+1,,,,,,,,,`);
    expect(terminals.split('\n')[1].split(',').slice(0, 4)).toEqual(['till-f', 'store-c', 'cashier', "'+till"]);
    for (const cell of [...stores.split(/[,\n]/), ...terminals.split(/[,\n]/)]) expect(cell).not.toMatch(/^"?[=+\-@]/);
    const other = path.join(dir, 'other.json');
    importCsv(
      other,
      [
        { name: 'stores.csv', text: stores },
        {
          name: 'terminals.csv',
          text: terminals
            .split('\n')
            .map((l) => l.split(',').slice(0, 4).join(','))
            .join('\n'),
        },
      ],
      deliver,
    );
    expect(loadTerminalsFile(other).stores).toEqual([formula]);
    expect(loadTerminalsFile(other).terminals.map((t) => t.label)).toEqual(['+till']);
  });

  it('an existing store with another cap or stand-in value is a bad row, never skipped as already there', () => {
    const exported = exportCsv(loadTerminalsFile(file), 'stores').split('\n');
    const before = readFileSync(file, 'utf8');
    const changed = [HEADER, exported[1].replace(',on,', ',off,'), exported[2].replace(',500,', ',400,'), 'store-c,m-1,Acme,b-3,Station,,,,,,,,,1'].join('\n');
    expect(refusal(() => importCsv(file, [{ name: 'stores.csv', text: changed }], deliver))).toEqual([
      'stores.csv line 2: store "store-a" already exists with other values (change it with edit-store)',
      'stores.csv line 3: store "store-b" already exists with other values (change it with edit-store)',
      'stores.csv line 4: store "store-c" already exists with other values (change it with edit-store)',
    ]);
    // An older CSV has no such columns: a store with its own values differs from it too.
    const old = `${OLD_HEADER}\nstore-b,m-1,Acme,b-2,"Pier, east",,\n`;
    expect(refusal(() => importCsv(file, [{ name: 'old.csv', text: old }], deliver))).toEqual([
      'old.csv line 2: store "store-b" already exists with other values (change it with edit-store)',
    ]);
    expect(readFileSync(file, 'utf8')).toBe(before);
  });

  it('reports a bad value in each new column with its line and column, and writes nothing', () => {
    const before = readFileSync(file, 'utf8');
    const row = (id: string, b: string, cells: string) => `${id},m-2,Other,${b},Branch ${b},,,${cells}`;
    const text = [
      HEADER,
      row('s-1', 'b-1', '-1,,,,,,'),
      row('s-2', 'b-2', 'lots,,,,,,'),
      row('s-3', 'b-3', ',maybe,,,,,'),
      row('s-4', 'b-4', ',,3601,,,,'),
      row('s-5', 'b-5', ',,,0,,,'),
      row('s-6', 'b-6', ',,,1441,,,'),
      row('s-7', 'b-7', ',,,,-5,,'),
      row('s-8', 'b-8', ',,,,,1.5,'),
      row('s-9', 'b-9', ',,,,,,61'),
      row('s-10', 'b-10', '10,on,abc,0,-1,x,99'),
      // A bad cell in a row for a store already there: that cell, not also a difference from the store.
      'store-b,m-1,Acme,b-2,"Pier, east",,,ten,off,,,,,2',
    ].join('\n');
    expect(refusal(() => importCsv(file, [{ name: 'stores.csv', text }], deliver))).toEqual([
      'stores.csv line 2: redemption_cap_points_per_customer_day: Too small: expected number to be >=0',
      'stores.csv line 3: redemption_cap_points_per_customer_day: must be a whole number or empty (the setting)',
      'stores.csv line 4: stand_in: Invalid option: expected one of "off"|"on"',
      'stores.csv line 5: stand_in_after_seconds: Too big: expected number to be <=3600',
      'stores.csv line 6: stand_in_seen_minutes: Too small: expected number to be >=1',
      'stores.csv line 7: stand_in_seen_minutes: Too big: expected number to be <=1440',
      'stores.csv line 8: stand_in_max_points_per_customer: Too small: expected number to be >=0',
      'stores.csv line 9: stand_in_max_points_per_store: must be a whole number or empty (the setting)',
      'stores.csv line 10: stand_in_approval_minutes: Too big: expected number to be <=60',
      // Every bad cell of a row, not only its first.
      'stores.csv line 11: stand_in_after_seconds: must be a whole number or empty (the setting)',
      'stores.csv line 11: stand_in_max_points_per_store: must be a whole number or empty (the setting)',
      'stores.csv line 11: stand_in_seen_minutes: Too small: expected number to be >=1',
      'stores.csv line 11: stand_in_max_points_per_customer: Too small: expected number to be >=0',
      'stores.csv line 11: stand_in_approval_minutes: Too big: expected number to be <=60',
      'stores.csv line 12: redemption_cap_points_per_customer_day: must be a whole number or empty (the setting)',
    ]);
    expect(readFileSync(file, 'utf8')).toBe(before);
  });

  it('imports an older CSV without the new columns: its stores take the settings', () => {
    const text = `${OLD_HEADER}\ns-old,m-2,Other,b-old,Old Town,true,15\n`;
    expect(importCsv(file, [{ name: 'old.csv', text }], deliver).storesAdded).toEqual(['s-old']);
    expect(loadTerminalsFile(file).stores.find((s) => s.id === 's-old')).toEqual({
      id: 's-old',
      merchant: { uniqueId: 'm-2', name: 'Other' },
      branch: { uniqueId: 'b-old', name: 'Old Town' },
      requireCashier: true,
      tillWaitSeconds: 15,
    });
    // Columns may also be left out one by one: here the cap alone, in another order.
    const some = 'branch_name,branch_id,merchant_name,merchant_id,id,redemption_cap_points_per_customer_day\nNew Town,b-new,Other,m-2,s-new,250\n';
    importCsv(file, [{ name: 'some.csv', text: some }], deliver);
    expect(loadTerminalsFile(file).stores.find((s) => s.id === 's-new')).toEqual({
      id: 's-new',
      merchant: { uniqueId: 'm-2', name: 'Other' },
      branch: { uniqueId: 'b-new', name: 'New Town' },
      redemptionCapPointsPerCustomerDay: 250,
    });
  });
});
