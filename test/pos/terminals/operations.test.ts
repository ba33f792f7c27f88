import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ConfigError } from '../../../src/platform/config';
import { BadRequestError, ConflictError, NotFoundError } from '../../../src/platform/errors';
import {
  addStore,
  addTerminal,
  DEMO_STORES,
  ensureDemoSetup,
  hashToken,
  listTerminals,
  loadTerminalsFile,
  readTerminalsFile,
  revokeTerminal,
  TerminalRegistry,
  TOKEN_PATTERN,
} from '../../../src/pos/terminals';

const STORE = { id: 'store-a', merchant: { uniqueId: 'm-1', name: 'Acme' }, branch: { uniqueId: 'b-1', name: 'Harbour' } };
const fixed = (iso: string) => () => new Date(iso);

let dir: string;
let file: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'terminals-ops-'));
  file = path.join(dir, 'terminals.json');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('terminals file', () => {
  it('is written 0600 by rename, leaving no temporary file behind', () => {
    addStore(file, STORE);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir)).toEqual(['terminals.json']);
    expect(loadTerminalsFile(file)).toEqual({ stores: [STORE], terminals: [] });
  });

  it('names the bad field of an invalid file', () => {
    writeFileSync(
      file,
      JSON.stringify({
        stores: [STORE],
        terminals: [{ id: 't', storeId: 'store-a', role: 'boss', tokenSha256: 'a'.repeat(64), createdAt: '2026-01-01T00:00:00Z' }],
      }),
    );
    expect(() => loadTerminalsFile(file)).toThrow(ConfigError);
    expect(() => loadTerminalsFile(file)).toThrow(/terminals\.json: terminals\.0\.role/);
  });

  it('refuses duplicate ids and unknown fields, naming where', () => {
    const t = { id: 't', storeId: 'store-a', role: 'cashier', tokenSha256: 'a'.repeat(64), createdAt: '2026-01-01T00:00:00Z' };
    writeFileSync(file, JSON.stringify({ stores: [STORE], terminals: [t, { ...t, tokenSha256: 'b'.repeat(64) }] }));
    expect(() => loadTerminalsFile(file)).toThrow(/terminals\.1: duplicate terminal id/);
    writeFileSync(file, JSON.stringify({ stores: [{ ...STORE, colour: 'red' }], terminals: [] }));
    expect(() => loadTerminalsFile(file)).toThrow(/stores\.0.*colour/);
  });

  it('says a file that is not JSON is not JSON, and a missing one is missing', () => {
    writeFileSync(file, '{ "stores": [');
    expect(() => readTerminalsFile(file)).toThrow(/is not valid JSON/);
    expect(readTerminalsFile(path.join(dir, 'none.json'))).toBeNull();
    expect(() => loadTerminalsFile(path.join(dir, 'none.json'))).toThrow(/does not exist/);
  });

  it('takes over a lock left behind by a crashed process', () => {
    writeFileSync(`${file}.lock`, '');
    const old = new Date(Date.now() - 60_000);
    utimesSync(`${file}.lock`, old, old);
    addStore(file, STORE);
    expect(loadTerminalsFile(file).stores).toHaveLength(1);
    expect(existsSync(`${file}.lock`)).toBe(false);
  });

  it('ships an example that is valid and whose hash matches no token', () => {
    const example = loadTerminalsFile(path.join(__dirname, '../../../config/terminals.example.json'));
    expect(example.terminals[0].tokenSha256).toBe('0'.repeat(64));
  });
});

describe('terminal operations', () => {
  it('adds a terminal whose token is returned once and stored only as its SHA-256', () => {
    addStore(file, STORE);
    const { terminal, token } = addTerminal(file, { storeId: 'store-a', role: 'manager', label: 'back office' }, { now: fixed('2026-03-01T10:00:00.000Z') });
    expect(token).toMatch(TOKEN_PATTERN);
    expect(terminal).toMatchObject({ storeId: 'store-a', role: 'manager', label: 'back office', createdAt: '2026-03-01T10:00:00.000Z' });
    expect(terminal.tokenSha256).toBe(hashToken(token));
    const text = readFileSync(file, 'utf8');
    expect(text).not.toContain(token);
    expect(text).not.toContain(token.slice(4));
    expect(text).toContain(terminal.tokenSha256);
  });

  it('gives every terminal a different token', () => {
    addStore(file, STORE);
    const tokens = new Set(Array.from({ length: 20 }, () => addTerminal(file, { storeId: 'store-a', role: 'cashier' }).token));
    expect(tokens.size).toBe(20);
  });

  it('refuses a terminal for an unknown store, a taken id and a bad role', () => {
    expect(() => addTerminal(file, { storeId: 'nowhere', role: 'cashier' })).toThrow(NotFoundError);
    addStore(file, STORE);
    addTerminal(file, { storeId: 'store-a', role: 'cashier', id: 'till-1' });
    expect(() => addTerminal(file, { storeId: 'store-a', role: 'cashier', id: 'till-1' })).toThrow(ConflictError);
    expect(() => addTerminal(file, { storeId: 'store-a', role: 'boss' as 'cashier' })).toThrow(BadRequestError);
  });

  it('refuses a duplicate store and names a bad store field', () => {
    addStore(file, STORE);
    expect(() => addStore(file, STORE)).toThrow(ConflictError);
    expect(() => addStore(file, { ...STORE, id: 'x y' })).toThrow(/id: must be 1-64/);
    expect(() => addStore(file, { ...STORE, id: 'store-b', branch: { uniqueId: '', name: 'B' } })).toThrow(/branch\.uniqueId/);
  });

  it("refuses a second store of the same merchant and branch names: a lost sale's store is found by them", () => {
    addStore(file, STORE);
    const twin = { ...STORE, id: 'store-b', branch: { uniqueId: 'b-2', name: 'Harbour' } };
    expect(() => addStore(file, twin)).toThrow(/stores\.1: duplicate merchant and branch name/);
    writeFileSync(file, JSON.stringify({ stores: [STORE, twin], terminals: [] }));
    expect(() => loadTerminalsFile(file)).toThrow(/stores\.1: duplicate merchant and branch name/);
    // The same branch name under another merchant, or another branch of the merchant, is another store.
    addStore(path.join(dir, 'other.json'), STORE);
    addStore(path.join(dir, 'other.json'), { ...twin, merchant: { uniqueId: 'm-2', name: 'Other' } });
    addStore(path.join(dir, 'other.json'), { ...twin, id: 'store-c', branch: { uniqueId: 'b-3', name: 'Quay' } });
    expect(loadTerminalsFile(path.join(dir, 'other.json')).stores.map((s) => s.id)).toEqual(['store-a', 'store-b', 'store-c']);
  });

  it('revokes once and keeps the first revocation time', () => {
    addStore(file, STORE);
    const { terminal } = addTerminal(file, { storeId: 'store-a', role: 'cashier' });
    const first = revokeTerminal(file, terminal.id, { now: fixed('2026-03-02T08:00:00.000Z') });
    expect(first).toMatchObject({ alreadyRevoked: false, terminal: { revokedAt: '2026-03-02T08:00:00.000Z' } });
    const again = revokeTerminal(file, terminal.id, { now: fixed('2026-03-03T08:00:00.000Z') });
    expect(again).toMatchObject({ alreadyRevoked: true, terminal: { revokedAt: '2026-03-02T08:00:00.000Z' } });
    expect(() => revokeTerminal(file, 'ghost')).toThrow(NotFoundError);
  });

  it('lists terminals with status and an 8-character hash prefix, never the whole hash', () => {
    addStore(file, STORE);
    const a = addTerminal(file, { storeId: 'store-a', role: 'cashier', id: 'a' }).terminal;
    addTerminal(file, { storeId: 'store-a', role: 'kiosk', id: 'b' });
    revokeTerminal(file, 'b');
    const listed = listTerminals(file);
    expect(listed.map((t) => [t.id, t.status, t.storeName])).toEqual([
      ['a', 'active', 'Harbour'],
      ['b', 'revoked', 'Harbour'],
    ]);
    expect(listed[0].hashPrefix).toBe(a.tokenSha256.slice(0, 8));
    expect(JSON.stringify(listed)).not.toContain(a.tokenSha256);
  });
});

describe('ensureDemoSetup', () => {
  it('creates the demo stores and four terminals whose tokens work, once', () => {
    const first = ensureDemoSetup(file);
    expect(first.created).toBe(true);
    expect(first.tokens.map((t) => [t.storeId, t.role])).toEqual([
      ['store-001', 'cashier'],
      ['store-001', 'manager'],
      ['store-001', 'kiosk'],
      ['store-002', 'cashier'],
    ]);
    const registry = new TerminalRegistry(file);
    for (const t of first.tokens) {
      const identity = registry.authenticate(t.token);
      expect(identity?.terminal.id).toBe(t.terminalId);
      expect(identity?.store).toEqual(DEMO_STORES.find((s) => s.id === t.storeId));
    }
    expect(ensureDemoSetup(file)).toEqual({ created: false, tokens: [] });
    expect(loadTerminalsFile(file).terminals).toHaveLength(4);
  });

  it('fills a file that has stores but no terminals, keeping its stores', () => {
    addStore(file, STORE);
    expect(ensureDemoSetup(file).created).toBe(true);
    expect(loadTerminalsFile(file).stores.map((s) => s.id)).toEqual(['store-a', 'store-001', 'store-002']);
  });

  it('never overwrites a corrupt file', () => {
    writeFileSync(file, 'not json');
    expect(() => ensureDemoSetup(file)).toThrow(/not valid JSON/);
    expect(readFileSync(file, 'utf8')).toBe('not json');
  });
});
