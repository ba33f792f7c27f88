import { randomBytes } from 'node:crypto';
import { closeSync, fchmodSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { ConfigError } from '../../platform/config';
import { addTerminalCommands, terminalCommand } from '../../platform/operator-commands';
import { ConflictError } from '../../platform/errors';
import type { Store, Terminal } from './types';

/**
 * The terminals file: every store and terminal the BFF accepts. It holds token
 * hashes only, yet is still written 0600: a hash list is nobody else's business.
 */
export interface TerminalsFile {
  /**
   * Raised by one on every change the CLI writes, once the file has one (TERMINALS_SHARED=redis: from its first
   * publish; absent: 0). A fleet instance takes the registry with the highest generation it sees, so an older
   * copy never replaces a newer one.
   */
  generation?: number;
  stores: Store[];
  terminals: Terminal[];
}

export const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const Id = z.string().regex(ID_PATTERN, 'must be 1-64 letters, digits, ".", "_" or "-", starting with a letter or digit');
const Name = z.string().trim().min(1).max(200);

export const StoreSchema = z.strictObject({
  id: Id,
  merchant: z.strictObject({ uniqueId: Name, name: Name }),
  branch: z.strictObject({ uniqueId: Name, name: Name }),
  /** Event names this store's kiosks may send (POST /events); absent: KIOSK_EVENTS. */
  kioskEvents: z
    .array(z.string().regex(/^[A-Za-z0-9_.:-]{1,200}$/, 'event names are letters, digits and _ . : -'))
    .max(200)
    .optional(),
  /** Tills must send X-Cashier-Id and X-Shift-Id on every write; absent: CASHIER_ID_REQUIRED. */
  requireCashier: z.boolean().optional(),
  /** Seconds its tills wait without `Prefer: wait` (1..120); absent: TILL_WAIT_SECONDS. */
  tillWaitSeconds: z.number().int().min(1).max(120).optional(),
  /** Most points one customer may redeem a day when starting here (0: no cap); absent: REDEMPTION_CAP_POINTS_PER_CUSTOMER_DAY. */
  redemptionCapPointsPerCustomerDay: z.number().int().min(0).optional(),
  /** Its own stand-in values (STAND_IN, STAND_IN_*); each absent: the setting. */
  standIn: z
    .strictObject({
      mode: z.enum(['off', 'on']).optional(),
      afterSeconds: z.number().int().min(0).max(3600).optional(),
      seenMinutes: z
        .number()
        .int()
        .min(1)
        .max(24 * 60)
        .optional(),
      maxPointsPerCustomer: z.number().int().min(0).optional(),
      maxPointsPerStore: z.number().int().min(0).optional(),
      approvalMinutes: z.number().int().min(0).max(60).optional(),
    })
    .optional(),
});

export const TerminalSchema = z.strictObject({
  id: Id,
  storeId: Id,
  role: z.enum(['cashier', 'manager', 'kiosk']),
  tokenSha256: z.string().regex(/^[0-9a-f]{64}$/, 'must be 64 lowercase hex characters (a SHA-256)'),
  label: z.string().trim().min(1).max(100).optional(),
  createdAt: z.iso.datetime({ offset: true }),
  revokedAt: z.iso.datetime({ offset: true }).optional(),
  /** The token before the last rotation: still accepted until previousValidUntil. */
  previousTokenSha256: z
    .string()
    .regex(/^[0-9a-f]{64}$/, 'must be 64 lowercase hex characters (a SHA-256)')
    .optional(),
  previousValidUntil: z.iso.datetime({ offset: true }).optional(),
});

function noDuplicates<T>(items: T[], key: (item: T) => string, where: string, what: string, ctx: z.RefinementCtx): void {
  const seen = new Set<string>();
  items.forEach((item, i) => {
    const k = key(item);
    if (seen.has(k)) ctx.addIssue({ code: 'custom', path: [where, i], message: `duplicate ${what}` });
    seen.add(k);
  });
}

// A terminal naming a missing store is allowed here (a store may be removed by
// hand); the registry refuses such a terminal rather than refusing the whole file.
export const TerminalsFileSchema = z
  .strictObject({ generation: z.number().int().min(0).optional(), stores: z.array(StoreSchema), terminals: z.array(TerminalSchema) })
  .superRefine((f, ctx) => {
    noDuplicates(f.stores, (s) => s.id, 'stores', 'store id', ctx);
    // A sale the BFF lost is given back to its store by the merchant and branch names the payment carried (sales/owner.ts).
    noDuplicates(f.stores, (s) => JSON.stringify([s.merchant.name, s.branch.name]), 'stores', 'merchant and branch name (a lost sale is found by them)', ctx);
    noDuplicates(f.terminals, (t) => t.id, 'terminals', 'terminal id', ctx);
    // A rotated-out token is still accepted in its grace period, so it must not be anyone else's either.
    const hashes = new Set<string>();
    f.terminals.forEach((t, i) => {
      for (const h of t.previousTokenSha256 ? [t.tokenSha256, t.previousTokenSha256] : [t.tokenSha256]) {
        if (hashes.has(h)) ctx.addIssue({ code: 'custom', path: ['terminals', i], message: 'duplicate tokenSha256 (two terminals share a token)' });
        hashes.add(h);
      }
      if ((t.previousTokenSha256 === undefined) !== (t.previousValidUntil === undefined))
        ctx.addIssue({ code: 'custom', path: ['terminals', i], message: 'previousTokenSha256 and previousValidUntil go together' });
    });
  });

// Keep the schema and the shared types in step: this fails to compile if they drift.
const _shapeCheck: z.output<typeof TerminalsFileSchema> extends TerminalsFile ? true : never = true;
void _shapeCheck;

function invalid(file: string, problems: string[]): ConfigError {
  return new ConfigError(problems.map((p) => `${file}: ${p}`));
}

export function parseTerminalsFile(file: string, raw: unknown): TerminalsFile {
  const parsed = TerminalsFileSchema.safeParse(raw);
  if (!parsed.success) {
    throw invalid(
      file,
      parsed.error.issues.map((i) => `${i.path.length ? i.path.join('.') : '(root)'}: ${i.message}`),
    );
  }
  return parsed.data;
}

/** Reads and validates the file; `null` when it does not exist. Anything else wrong throws a ConfigError naming the field. */
export function readTerminalsFile(file: string): TerminalsFile | null {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw invalid(file, [`cannot be read (${(err as Error).message})`]);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw invalid(file, [`is not valid JSON (${(err as Error).message})`]);
  }
  return parseTerminalsFile(file, raw);
}

/** Like readTerminalsFile, but a missing file is an error too. */
export function loadTerminalsFile(file: string): TerminalsFile {
  const data = readTerminalsFile(file);
  if (!data) throw invalid(file, [`does not exist (create a store and a terminal: ${addTerminalCommands(terminalCommand(), file).join(' ; ')})`]);
  return data;
}

/**
 * Validates, then writes to a temporary file beside the target and renames it
 * over, so a reader (the running BFF) never sees half a file.
 */
export function writeTerminalsFile(file: string, data: TerminalsFile): void {
  const valid = parseTerminalsFile(file, data);
  const dir = path.dirname(path.resolve(file));
  mkdirSync(dir, { recursive: true });
  const tmp = path.join(dir, `.${path.basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  const fd = openSync(tmp, 'wx', 0o600);
  try {
    fchmodSync(fd, 0o600); // the umask may have taken bits away; make sure it is exactly 0600
    writeSync(fd, `${JSON.stringify(valid, null, 2)}\n`);
    fsyncSync(fd);
  } catch (err) {
    closeSync(fd);
    rmSync(tmp, { force: true });
    throw err;
  }
  closeSync(fd);
  try {
    renameSync(tmp, file);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
}

const LOCK_WAIT_MS = 5000;
const LOCK_STALE_MS = 30_000;
const sleepSync = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/**
 * Runs a read-modify-write of the file under an exclusive lock file, so two
 * CLI runs (or two instances creating the demo set-up) cannot lose each
 * other's changes. A lock older than 30 s is taken to be left by a crash.
 */
export function withFileLock<T>(file: string, change: () => T): T {
  const lock = `${file}.lock`;
  mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      closeSync(openSync(lock, 'wx', 0o600));
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      let age: number;
      try {
        age = Date.now() - statSync(lock).mtimeMs;
      } catch {
        continue; // released just now: try again at once
      }
      if (age > LOCK_STALE_MS) rmSync(lock, { force: true });
      else if (Date.now() > deadline)
        throw new ConflictError('terminals_file_locked', `${file} is being changed by another process (remove ${lock} if none is running)`);
      else sleepSync(20);
    }
  }
  try {
    return change();
  } finally {
    rmSync(lock, { force: true });
  }
}

/**
 * A change the CLI makes: under the lock, read (a missing file is empty), change, raise the generation (when the
 * file has one) by one and write, when the change changed anything. What `change` returns is handed back; when it throws, nothing is written.
 */
export function updateTerminalsFile<T>(file: string, change: (data: TerminalsFile) => T): { result: T; data: TerminalsFile } {
  return withFileLock(file, () => {
    const data = readTerminalsFile(file) ?? { stores: [], terminals: [] };
    const before = JSON.stringify(data);
    const result = change(data);
    // Nothing changed (a second revoke, an import already done): no new generation, nothing written.
    if (JSON.stringify(data) === before) return { result, data };
    // Counted only in a file that has a generation (a fleet's, given one by its first publish): a file of the
    // single-instance default keeps the shape a previous release reads, so a rolling upgrade can share it.
    const changed: TerminalsFile = data.generation === undefined ? data : { generation: data.generation + 1, stores: data.stores, terminals: data.terminals };
    writeTerminalsFile(file, changed);
    return { result, data: changed };
  });
}

/** Writes the file again with its generation raised past `above` (and past its own): a hand edit or a forced publish becomes the newest. */
export function raiseGeneration(file: string, above: number): TerminalsFile {
  return withFileLock(file, () => {
    const data = readTerminalsFile(file) ?? { stores: [], terminals: [] };
    const raised: TerminalsFile = { generation: Math.max(above, data.generation ?? 0) + 1, stores: data.stores, terminals: data.terminals };
    writeTerminalsFile(file, raised);
    return raised;
  });
}
