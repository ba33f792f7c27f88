import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import { ConflictError } from '../../platform/errors';
import { updateTerminalsFile, StoreSchema, ID_PATTERN, type TerminalsFile } from './file';
import { listingsOf, placeTerminal, type OperationOptions } from './operations';
import { TERMINAL_ROLES, type Store, type TerminalRole } from './types';

/** The columns of a stores CSV (import and export alike); the first five are required, the rest may be left out. */
export const STORE_COLUMNS = [
  'id',
  'merchant_id',
  'merchant_name',
  'branch_id',
  'branch_name',
  'require_cashier',
  'till_wait_seconds',
  'redemption_cap_points_per_customer_day',
  'stand_in',
  'stand_in_after_seconds',
  'stand_in_seen_minutes',
  'stand_in_max_points_per_customer',
  'stand_in_max_points_per_store',
  'stand_in_approval_minutes',
] as const;
type StoreColumn = (typeof STORE_COLUMNS)[number];

/**
 * Where each store column's value sits in a Store, and how its cell is read. An empty optional cell leaves the
 * field out (the store takes the setting); the schema checks the ranges.
 */
const STORE_CELLS: Record<StoreColumn, { path: readonly string[]; read: 'text' | 'boolean' | 'integer' | 'word' }> = {
  id: { path: ['id'], read: 'text' },
  merchant_id: { path: ['merchant', 'uniqueId'], read: 'text' },
  merchant_name: { path: ['merchant', 'name'], read: 'text' },
  branch_id: { path: ['branch', 'uniqueId'], read: 'text' },
  branch_name: { path: ['branch', 'name'], read: 'text' },
  require_cashier: { path: ['requireCashier'], read: 'boolean' },
  till_wait_seconds: { path: ['tillWaitSeconds'], read: 'integer' },
  redemption_cap_points_per_customer_day: { path: ['redemptionCapPointsPerCustomerDay'], read: 'integer' },
  stand_in: { path: ['standIn', 'mode'], read: 'word' },
  stand_in_after_seconds: { path: ['standIn', 'afterSeconds'], read: 'integer' },
  stand_in_seen_minutes: { path: ['standIn', 'seenMinutes'], read: 'integer' },
  stand_in_max_points_per_customer: { path: ['standIn', 'maxPointsPerCustomer'], read: 'integer' },
  stand_in_max_points_per_store: { path: ['standIn', 'maxPointsPerStore'], read: 'integer' },
  stand_in_approval_minutes: { path: ['standIn', 'approvalMinutes'], read: 'integer' },
};
// In STORE_COLUMNS' order: an export's cells under its header.
const storeCells = STORE_COLUMNS.map((column) => [column, STORE_CELLS[column]] as const);

/** The columns a terminals CSV is imported from; an export adds what only the registry knows (never a token or hash). */
export const TERMINAL_COLUMNS = ['id', 'store_id', 'role', 'label'] as const;
const TERMINAL_EXPORT_COLUMNS = [...TERMINAL_COLUMNS, 'status', 'created_at', 'revoked_at', 'previous_valid_until'] as const;

/** A refused import: every bad row with where it is; nothing was written. */
export class ImportRefused extends ConflictError {
  constructor(readonly problems: string[]) {
    super('import_refused', `nothing imported, ${problems.length} problem(s):\n${problems.map((p) => `  ${p}`).join('\n')}`);
  }
}

export interface CsvSource {
  /** Shown in problems: `stores.csv line 4: ...`. */
  name: string;
  text: string;
}

export interface NewToken {
  terminalId: string;
  storeId: string;
  role: TerminalRole;
  token: string;
}

export interface ImportOutcome {
  storesAdded: string[];
  storesUnchanged: string[];
  terminalsAdded: NewToken[];
  terminalsUnchanged: string[];
}

type Row = { line: number; cells: Record<string, string> };
interface Sheet {
  source: CsvSource;
  kind: 'stores' | 'terminals';
  rows: Row[];
}

function readSheet(source: CsvSource, problems: string[]): Sheet | undefined {
  let records: { record: Record<string, string>; info: { lines: number } }[];
  let header: string[] = [];
  try {
    records = parse(source.text, {
      bom: true,
      trim: true,
      skip_empty_lines: true,
      info: true,
      columns: (h: string[]) => (header = h.map((c) => c.trim().toLowerCase())),
    });
  } catch (err) {
    problems.push(`${source.name}: not readable as CSV (${(err as Error).message})`);
    return undefined;
  }
  const kind = header.includes('merchant_id') ? 'stores' : header.includes('role') ? 'terminals' : undefined;
  if (!kind) {
    problems.push(`${source.name} line 1: the header names neither stores (${STORE_COLUMNS.join(',')}) nor terminals (${TERMINAL_COLUMNS.join(',')})`);
    return undefined;
  }
  const known: readonly string[] = kind === 'stores' ? STORE_COLUMNS : TERMINAL_COLUMNS;
  const unknown = header.filter((c) => !known.includes(c));
  const required = kind === 'stores' ? STORE_COLUMNS.slice(0, 5) : TERMINAL_COLUMNS.slice(0, 3);
  const missing = required.filter((c) => !header.includes(c));
  if (unknown.length || missing.length) {
    const parts = [
      ...(unknown.length ? [`unknown column(s) ${unknown.join(', ')}`] : []),
      ...(missing.length ? [`missing column(s) ${missing.join(', ')}`] : []),
    ];
    problems.push(`${source.name} line 1: ${parts.join('; ')} (a ${kind} CSV has ${known.join(',')})`);
    return undefined;
  }
  return { source, kind, rows: records.map((r) => ({ line: r.info.lines, cells: r.record })) };
}

/** The column a schema issue is about, so a problem names the cell the operator typed. */
const columnOf = (path: readonly PropertyKey[]) => storeCells.find(([, c]) => c.path.join('.') === path.join('.'))?.[0] ?? (path.join('.') || 'row');

function storeOf(cells: Record<string, string>, say: (m: string) => void): Store | undefined {
  const store: Record<string, unknown> = {};
  let bad = false;
  for (const [column, { path, read }] of storeCells) {
    const cell = cells[column] ?? ''; // an optional column left out of the header: as an empty cell
    let value: unknown = textIn(cell);
    if (read !== 'text') {
      if (cell === '') continue;
      if (read === 'boolean') value = cell.toLowerCase() === 'true' ? true : cell.toLowerCase() === 'false' ? false : undefined;
      else if (read === 'integer') value = /^-?\d+$/.test(cell) ? Number(cell) : undefined;
      else value = cell.toLowerCase();
      if (value === undefined) {
        say(`${column}: must be ${read === 'boolean' ? 'true, false' : 'a whole number'} or empty (the setting)`);
        bad = true;
        continue;
      }
    }
    let into = store;
    for (const key of path.slice(0, -1)) into = (into[key] ??= {}) as Record<string, unknown>;
    into[path[path.length - 1]] = value;
  }
  const parsed = StoreSchema.safeParse(store);
  if (!parsed.success) for (const i of parsed.error.issues) say(`${columnOf(i.path)}: ${i.message}`);
  return parsed.success && !bad ? parsed.data : undefined;
}

/**
 * A store as its CSV row carries it: without what no column holds (kioskEvents, kept as it is by an
 * import) and with an empty standIn read as none, so an existing store compares by its row alone.
 */
function asRow(s: Store): Store {
  const { kioskEvents: _kept, standIn, ...row } = s;
  return standIn && Object.keys(standIn).length ? { ...row, standIn } : row;
}

const sameRow = (a: Store, b: Store) => JSON.stringify(asRow(a)) === JSON.stringify(asRow(b));

/**
 * A spreadsheet runs a cell that starts with = + - @ (or a tab or return) as a formula: an exported name is
 * given a leading ' (which the spreadsheet shows as text), and an import takes that ' off again.
 */
const FORMULA_START = /^[=+\-@\t\r]/;
const textOut = (v: unknown): unknown => (typeof v === 'string' && FORMULA_START.test(v) ? `'${v}` : v);
const textIn = (cell: string): string => (cell.startsWith("'") && FORMULA_START.test(cell.slice(1)) ? cell.slice(1) : cell);

/**
 * Imports stores and terminals from CSV texts, in one change of the file. Every row of every text is checked
 * first and all problems are reported with their lines; one bad row and nothing is written. Rows are idempotent:
 * a store or terminal already there with the same values is left as it is (a second run of the same import is a
 * no-op and makes no token); with other values it is a problem (edit-store and rotate change things, not import).
 * `deliverTokens` gets the new terminals' tokens before the file is written; if it throws, nothing is written.
 */
export function importCsv(file: string, sources: CsvSource[], deliverTokens: (tokens: NewToken[]) => void, options: OperationOptions = {}): ImportOutcome {
  const problems: string[] = [];
  const sheets = sources.map((s) => readSheet(s, problems)).filter((s): s is Sheet => s !== undefined);
  return updateTerminalsFile(file, (data: TerminalsFile) => {
    const outcome: ImportOutcome = { storesAdded: [], storesUnchanged: [], terminalsAdded: [], terminalsUnchanged: [] };
    const seen = new Map<string, string>(); // "kind:id" -> where first named
    const fresh = (kind: string, id: string, where: string, say: (m: string) => void) => {
      const first = seen.get(`${kind}:${id}`);
      if (first) say(`${kind === 's' ? 'store' : 'terminal'} "${id}" is also on ${first}`);
      else seen.set(`${kind}:${id}`, where);
      return !first;
    };
    // Stores first, whatever the order of the files: a terminals row may name a store of this import.
    for (const sheet of [...sheets].sort((a, b) => (a.kind === b.kind ? 0 : a.kind === 'stores' ? -1 : 1))) {
      for (const { line, cells } of sheet.rows) {
        const where = `${sheet.source.name} line ${line}`;
        const say = (m: string) => problems.push(`${where}: ${m}`);
        if (sheet.kind === 'stores') {
          const store = storeOf(cells, say);
          if (!store || !fresh('s', store.id, where, say)) continue;
          const existing = data.stores.find((s) => s.id === store.id);
          if (!existing) {
            data.stores.push(store);
            outcome.storesAdded.push(store.id);
          } else if (sameRow(existing, store)) outcome.storesUnchanged.push(store.id);
          else say(`store "${store.id}" already exists with other values (change it with edit-store)`);
          continue;
        }
        const { id, store_id: storeId, role } = cells;
        const label = textIn(cells.label ?? '') || undefined;
        if (!ID_PATTERN.test(id ?? '')) say('id: must be 1-64 letters, digits, ".", "_" or "-", starting with a letter or digit');
        if (!TERMINAL_ROLES.includes(role as TerminalRole)) say(`role: must be one of ${TERMINAL_ROLES.join(', ')}`);
        if (label !== undefined && label.length > 100) say('label: at most 100 characters');
        if (!data.stores.some((s) => s.id === storeId)) say(`store_id: store "${storeId}" does not exist (add it, or import it in the same command)`);
        if (!ID_PATTERN.test(id ?? '') || !fresh('t', id, where, say)) continue;
        const existing = data.terminals.find((t) => t.id === id);
        if (existing) {
          if (existing.storeId === storeId && existing.role === role && existing.label === label) outcome.terminalsUnchanged.push(id);
          else say(`terminal "${id}" already exists with another store, role or label`);
          continue;
        }
        if (problems.length) continue; // no tokens made for an import that will not be written
        try {
          const { terminal, token } = placeTerminal(data, { id, storeId, role: role as TerminalRole, ...(label ? { label } : {}) }, options);
          outcome.terminalsAdded.push({ terminalId: terminal.id, storeId: terminal.storeId, role: terminal.role, token });
        } catch (err) {
          say((err as Error).message);
        }
      }
    }
    if (problems.length) throw new ImportRefused(problems);
    if (outcome.terminalsAdded.length) deliverTokens(outcome.terminalsAdded);
    return outcome;
  }).result;
}

/** The stores or the terminals as CSV: what the registry holds, never a token or a hash. */
export function exportCsv(data: TerminalsFile, what: 'stores' | 'terminals'): string {
  if (what === 'stores') {
    const rows = data.stores.map((s) =>
      storeCells.map(([, { path }]) => textOut(path.reduce<unknown>((at, key) => (at as Record<string, unknown> | undefined)?.[key], s) ?? '')),
    );
    return stringify(rows, { header: true, columns: [...STORE_COLUMNS], cast: { boolean: (b) => String(b) } });
  }
  const rows = listingsOf(data).map((t) => [
    t.id,
    t.storeId,
    t.role,
    textOut(t.label ?? ''),
    t.status,
    t.createdAt,
    t.revokedAt ?? '',
    t.previousValidUntil ?? '',
  ]);
  return stringify(rows, { header: true, columns: [...TERMINAL_EXPORT_COLUMNS] });
}

/** The tokens of new terminals as CSV, for the file the operator hands to the tills. */
export function tokensCsv(tokens: NewToken[]): string {
  return stringify(
    tokens.map((t) => [t.terminalId, t.storeId, t.role, t.token]),
    { header: true, columns: ['terminal_id', 'store_id', 'role', 'token'] },
  );
}
