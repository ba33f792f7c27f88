import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { BadRequestError, ConflictError, NotFoundError } from '../../platform/errors';
import { parseOrThrow } from '../../platform/validation';
import { ID_PATTERN, readTerminalsFile, StoreSchema, type TerminalsFile, updateTerminalsFile } from './file';
import { generateToken, hashPrefix, hashToken } from './tokens';
import type { Store, StoreStandIn, Terminal, TerminalRole } from './types';

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
export function placeTerminal(data: TerminalsFile, input: NewTerminal, options: OperationOptions): { terminal: Terminal; token: string } {
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
  return updateTerminalsFile(file, (data) => placeTerminal(data, input, options)).result;
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
  /** Until when the token before the last rotation is still accepted. */
  previousValidUntil?: string;
  status: TerminalStatus;
  hashPrefix: string;
}

/** Which terminals a listing shows; every filter given must hold. */
export interface TerminalFilter {
  storeId?: string;
  role?: TerminalRole;
  status?: TerminalStatus;
}

export function listTerminals(file: string, filter: TerminalFilter = {}): TerminalListing[] {
  return listingsOf(readTerminalsFile(file) ?? emptyFile()).filter(
    (t) =>
      (filter.storeId === undefined || t.storeId === filter.storeId) &&
      (filter.role === undefined || t.role === filter.role) &&
      (filter.status === undefined || t.status === filter.status),
  );
}

export function listingsOf(data: TerminalsFile): TerminalListing[] {
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
      ...(t.previousValidUntil ? { previousValidUntil: t.previousValidUntil } : {}),
      status,
      hashPrefix: hashPrefix(t.tokenSha256),
    };
  });
}

export function listStores(file: string): Store[] {
  return (readTerminalsFile(file) ?? emptyFile()).stores;
}

function terminalIn(data: TerminalsFile, terminalId: string): Terminal {
  const terminal = data.terminals.find((t) => t.id === terminalId);
  if (!terminal) throw new NotFoundError('terminal_not_found', `Terminal "${terminalId}" does not exist`);
  return terminal;
}

/** Revokes a terminal; revoking twice keeps the first revocation time. A running BFF picks it up on its next check. */
export function revokeTerminal(file: string, terminalId: string, options: OperationOptions = {}): { terminal: Terminal; alreadyRevoked: boolean } {
  return updateTerminalsFile(file, (data) => {
    const terminal = terminalIn(data, terminalId);
    if (terminal.revokedAt) return { terminal, alreadyRevoked: true };
    terminal.revokedAt = nowOf(options);
    // A revoked terminal keeps no token at all, the rotated-out one included.
    delete terminal.previousTokenSha256;
    delete terminal.previousValidUntil;
    return { terminal, alreadyRevoked: false };
  }).result;
}

/** The longest grace a rotated-out token may keep: a week covers a till switched off over a long weekend. */
export const MAX_ROTATION_GRACE_MS = 7 * 86_400_000;

/**
 * Gives a terminal a new token, returned here once. The token it had stays valid `graceMs` more (0: refused at
 * once), so a till can switch at its next convenient moment; a token rotated out earlier is dropped now.
 */
export function rotateTerminal(
  file: string,
  terminalId: string,
  graceMs: number,
  options: OperationOptions = {},
): { terminal: Terminal; token: string; previousValidUntil?: string } {
  if (!Number.isInteger(graceMs) || graceMs < 0 || graceMs > MAX_ROTATION_GRACE_MS) {
    throw new BadRequestError('validation_failed', `the grace period must be 0 to ${MAX_ROTATION_GRACE_MS / 3_600_000} hours`);
  }
  return updateTerminalsFile(file, (data) => {
    const terminal = terminalIn(data, terminalId);
    if (terminal.revokedAt) throw new ConflictError('terminal_revoked', `Terminal "${terminalId}" is revoked; add a new one instead`);
    const token = generateToken();
    const until = (options.now ?? (() => new Date()))().getTime() + graceMs;
    if (graceMs > 0) {
      terminal.previousTokenSha256 = terminal.tokenSha256;
      terminal.previousValidUntil = new Date(until).toISOString();
    } else {
      delete terminal.previousTokenSha256;
      delete terminal.previousValidUntil;
    }
    terminal.tokenSha256 = hashToken(token);
    return { terminal, token, ...(terminal.previousValidUntil ? { previousValidUntil: terminal.previousValidUntil } : {}) };
  }).result;
}

export function addStore(file: string, store: Store): Store {
  const valid = parseOrThrow(StoreSchema, store, 'store');
  return updateTerminalsFile(file, (data) => {
    if (data.stores.some((s) => s.id === valid.id)) {
      throw new ConflictError('store_exists', `Store "${valid.id}" already exists`);
    }
    data.stores.push(valid);
    return valid;
  }).result;
}

/** What edit-store may change; `null` takes a store's own value away (the setting applies again). */
export interface StoreChange {
  merchantId?: string;
  merchantName?: string;
  branchId?: string;
  branchName?: string;
  requireCashier?: boolean | null;
  tillWaitSeconds?: number | null;
  redemptionCapPointsPerCustomerDay?: number | null;
  /** Each stand-in value given: set, or with `null` taken away; the others stay as they are. */
  standIn?: { [K in keyof StoreStandIn]?: StoreStandIn[K] | null };
}

export function editStore(file: string, storeId: string, change: StoreChange): Store {
  return updateTerminalsFile(file, (data) => {
    const i = data.stores.findIndex((s) => s.id === storeId);
    if (i < 0) throw new NotFoundError('store_not_found', `Store "${storeId}" does not exist`);
    const old = data.stores[i];
    const edited: Store = {
      ...old,
      merchant: { uniqueId: change.merchantId ?? old.merchant.uniqueId, name: change.merchantName ?? old.merchant.name },
      branch: { uniqueId: change.branchId ?? old.branch.uniqueId, name: change.branchName ?? old.branch.name },
    };
    for (const key of ['requireCashier', 'tillWaitSeconds', 'redemptionCapPointsPerCustomerDay'] as const) {
      if (change[key] === null) delete edited[key];
      else if (change[key] !== undefined) Object.assign(edited, { [key]: change[key] });
    }
    if (change.standIn) {
      const standIn: Record<string, unknown> = { ...old.standIn };
      for (const [key, value] of Object.entries(change.standIn)) {
        if (value === null) delete standIn[key];
        else if (value !== undefined) standIn[key] = value;
      }
      // No value of its own left: no `standIn` at all, as a store that never had one.
      if (Object.keys(standIn).length) edited.standIn = standIn as StoreStandIn;
      else delete edited.standIn;
    }
    data.stores[i] = parseOrThrow(StoreSchema, edited, 'store');
    return data.stores[i];
  }).result;
}

/**
 * Removes a store. Refused while it has terminals not revoked (they would be refused as store_missing without
 * saying so), unless `revokeTerminals`: then they are revoked in the same change.
 */
export function removeStore(file: string, storeId: string, opts: { revokeTerminals?: boolean } & OperationOptions = {}): { store: Store; revoked: string[] } {
  return updateTerminalsFile(file, (data) => {
    const store = data.stores.find((s) => s.id === storeId);
    if (!store) throw new NotFoundError('store_not_found', `Store "${storeId}" does not exist`);
    const live = data.terminals.filter((t) => t.storeId === storeId && !t.revokedAt);
    if (live.length && !opts.revokeTerminals) {
      throw new ConflictError(
        'store_has_terminals',
        `Store "${storeId}" has ${live.length} terminal(s) not revoked (${live
          .slice(0, 5)
          .map((t) => t.id)
          .join(', ')}${live.length > 5 ? ', ...' : ''}); revoke them first, or pass --revoke-terminals`,
      );
    }
    const at = nowOf(opts);
    for (const t of live) {
      t.revokedAt = at;
      delete t.previousTokenSha256;
      delete t.previousValidUntil;
    }
    data.stores = data.stores.filter((s) => s !== store);
    return { store, revoked: live.map((t) => t.id) };
  }).result;
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
  return updateTerminalsFile(file, (data) => {
    if (data.terminals.length > 0) return { created: false, tokens: [] as DemoToken[] };
    for (const store of DEMO_STORES) {
      if (!data.stores.some((s) => s.id === store.id)) data.stores.push(structuredClone(store));
    }
    const tokens = DEMO_TERMINALS.map((spec) => {
      const { terminal, token } = placeTerminal(data, { ...spec, label: `demo ${spec.role}` }, options);
      return { terminalId: terminal.id, role: terminal.role, storeId: terminal.storeId, token };
    });
    return { created: true, tokens };
  }).result;
}
