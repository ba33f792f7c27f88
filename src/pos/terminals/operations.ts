import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { ConflictError, NotFoundError } from '../../platform/errors';
import { parseOrThrow } from '../../platform/validation';
import { ID_PATTERN, readTerminalsFile, StoreSchema, TerminalsFile, withFileLock, writeTerminalsFile } from './file';
import { generateToken, hashPrefix, hashToken } from './tokens';
import type { Store, Terminal, TerminalRole } from './types';

/** Injected clock, so tests can pin createdAt/revokedAt. */
export interface OperationOptions {
  now?: () => Date;
}

const NewTerminal = z.strictObject({
  storeId: z.string().min(1),
  role: z.enum(['cashier', 'manager', 'kiosk']),
  label: z.string().trim().min(1).max(100).optional(),
  id: z.string().regex(ID_PATTERN, 'must be 1-64 letters, digits, ".", "_" or "-", starting with a letter or digit').optional(),
});
export type NewTerminal = z.input<typeof NewTerminal>;

const emptyFile = (): TerminalsFile => ({ stores: [], terminals: [] });
const nowOf = (o: OperationOptions) => (o.now ?? (() => new Date()))().toISOString();

/** Puts one new terminal into `data` and returns it with its token (the token is not in `data`). */
function placeTerminal(data: TerminalsFile, input: NewTerminal, options: OperationOptions): { terminal: Terminal; token: string } {
  const spec = parseOrThrow(NewTerminal, input, 'terminal');
  if (!data.stores.some((s) => s.id === spec.storeId)) {
    throw new NotFoundError('store_not_found', `Store "${spec.storeId}" does not exist; add it first (terminal add-store)`);
  }
  const id = spec.id ?? `term-${randomBytes(4).toString('hex')}`;
  if (data.terminals.some((t) => t.id === id)) {
    throw new ConflictError('terminal_exists', `Terminal "${id}" already exists`);
  }
  const token = generateToken();
  const terminal: Terminal = { id, storeId: spec.storeId, role: spec.role, tokenSha256: hashToken(token), createdAt: nowOf(options) };
  if (spec.label) terminal.label = spec.label;
  data.terminals.push(terminal);
  return { terminal, token };
}

/** Creates a terminal. The token is returned here once and stored nowhere but as its SHA-256. */
export function addTerminal(file: string, input: NewTerminal, options: OperationOptions = {}): { terminal: Terminal; token: string } {
  return withFileLock(file, () => {
    const data = readTerminalsFile(file) ?? emptyFile();
    const created = placeTerminal(data, input, options);
    writeTerminalsFile(file, data);
    return created;
  });
}

export type TerminalStatus = 'active' | 'revoked' | 'store_missing';

/** What a listing may show: everything but the hash, of which only a prefix. */
export interface TerminalListing {
  id: string;
  storeId: string;
  storeName?: string;
  role: TerminalRole;
  label?: string;
  createdAt: string;
  revokedAt?: string;
  status: TerminalStatus;
  hashPrefix: string;
}

export function listTerminals(file: string): TerminalListing[] {
  const data = readTerminalsFile(file) ?? emptyFile();
  const stores = new Map(data.stores.map((s) => [s.id, s]));
  return data.terminals.map((t) => {
    const store = stores.get(t.storeId);
    const status: TerminalStatus = t.revokedAt ? 'revoked' : store ? 'active' : 'store_missing';
    return {
      id: t.id,
      storeId: t.storeId,
      ...(store ? { storeName: store.branch.name } : {}),
      role: t.role,
      ...(t.label ? { label: t.label } : {}),
      createdAt: t.createdAt,
      ...(t.revokedAt ? { revokedAt: t.revokedAt } : {}),
      status,
      hashPrefix: hashPrefix(t.tokenSha256),
    };
  });
}

export function listStores(file: string): Store[] {
  return (readTerminalsFile(file) ?? emptyFile()).stores;
}

/** Revokes a terminal; revoking twice keeps the first revocation time. A running BFF picks it up on its next file check. */
export function revokeTerminal(file: string, terminalId: string, options: OperationOptions = {}): { terminal: Terminal; alreadyRevoked: boolean } {
  return withFileLock(file, () => {
    const data = readTerminalsFile(file) ?? emptyFile();
    const terminal = data.terminals.find((t) => t.id === terminalId);
    if (!terminal) throw new NotFoundError('terminal_not_found', `Terminal "${terminalId}" does not exist`);
    if (terminal.revokedAt) return { terminal, alreadyRevoked: true };
    terminal.revokedAt = nowOf(options);
    writeTerminalsFile(file, data);
    return { terminal, alreadyRevoked: false };
  });
}

export function addStore(file: string, store: Store): Store {
  const valid = parseOrThrow(StoreSchema, store, 'store');
  return withFileLock(file, () => {
    const data = readTerminalsFile(file) ?? emptyFile();
    if (data.stores.some((s) => s.id === valid.id)) {
      throw new ConflictError('store_exists', `Store "${valid.id}" already exists`);
    }
    data.stores.push(valid);
    writeTerminalsFile(file, data);
    return valid;
  });
}

export const DEMO_STORES: readonly Store[] = [
  { id: 'store-001', merchant: { uniqueId: 'demo-merchant', name: 'Demo Retail' }, branch: { uniqueId: 'branch-001', name: 'Downtown' } },
  { id: 'store-002', merchant: { uniqueId: 'demo-merchant', name: 'Demo Retail' }, branch: { uniqueId: 'branch-002', name: 'Airport' } },
];

const DEMO_TERMINALS: readonly Required<Omit<NewTerminal, 'label'>>[] = [
  { id: 'store-001-cashier', storeId: 'store-001', role: 'cashier' },
  { id: 'store-001-manager', storeId: 'store-001', role: 'manager' },
  { id: 'store-001-kiosk', storeId: 'store-001', role: 'kiosk' },
  { id: 'store-002-cashier', storeId: 'store-002', role: 'cashier' },
];

export interface DemoToken {
  terminalId: string;
  role: TerminalRole;
  storeId: string;
  token: string;
}

/**
 * A fresh clone has no terminals: create the demo stores and four demo
 * terminals, and hand back their tokens once so start-up can print them.
 * A file that already has terminals is left alone; a corrupt one throws.
 */
export function ensureDemoSetup(file: string, options: OperationOptions = {}): { created: boolean; tokens: DemoToken[] } {
  // Under the lock: two instances starting together on a fresh clone create one set, not two.
  return withFileLock(file, () => {
    const data = readTerminalsFile(file) ?? emptyFile();
    if (data.terminals.length > 0) return { created: false, tokens: [] };
    for (const store of DEMO_STORES) {
      if (!data.stores.some((s) => s.id === store.id)) data.stores.push(structuredClone(store));
    }
    const tokens = DEMO_TERMINALS.map((spec) => {
      const { terminal, token } = placeTerminal(data, { ...spec, label: `demo ${spec.role}` }, options);
      return { terminalId: terminal.id, role: terminal.role, storeId: terminal.storeId, token };
    });
    writeTerminalsFile(file, data);
    return { created: true, tokens };
  });
}
