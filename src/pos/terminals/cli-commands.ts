import { closeSync, fsyncSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { loadConfig, loadDotEnv, type Config } from '../../platform/config';
import { BadRequestError } from '../../platform/errors';
import { revokeTerminalCommand, terminalCommand } from '../../platform/operator-commands';
import { exportCsv, importCsv, tokensCsv, type NewToken } from './csv';
import { readTerminalsFile, StoreSchema } from './file';
import {
  addStore,
  addTerminal,
  editStore,
  listTerminals,
  removeStore,
  revokeTerminal,
  rotateTerminal,
  type StoreChange,
  type TerminalStatus,
} from './operations';
import { TERMINAL_ROLES, type StoreStandIn, type TerminalRole } from './types';
import type { Values } from './cli-args';
import type { Fleet } from './cli-fleet';

const bad = (message: string) => new BadRequestError('validation_failed', message);

function required(values: Values, name: keyof Values): string {
  const v = values[name];
  if (typeof v !== 'string' || v.trim() === '') throw bad(`missing --${name}`);
  return v;
}

function roleOf(value: string | undefined): TerminalRole | undefined {
  if (value === undefined) return undefined;
  if (!TERMINAL_ROLES.includes(value as TerminalRole)) throw bad(`--role must be one of ${TERMINAL_ROLES.join(', ')}`);
  return value as TerminalRole;
}

const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `90s`, `10m`, `2h`, `1d` or `0`. */
export function durationMs(text: string): number {
  const m = /^(\d{1,6})([smhd])?$/.exec(text.trim());
  if (!m || (m[2] === undefined && m[1] !== '0')) throw bad(`--grace must be a number with s, m, h or d (e.g. 10m), or 0; got "${text}"`);
  return Number(m[1]) * (m[2] ? UNIT_MS[m[2]] : 0);
}

/** edit-store's options for a store's own values, and where each sits in a Store. */
const OWN_VALUES: readonly {
  option: keyof Values;
  path: readonly ['tillWaitSeconds' | 'redemptionCapPointsPerCustomerDay'] | readonly ['standIn', keyof StoreStandIn];
}[] = [
  { option: 'till-wait-seconds', path: ['tillWaitSeconds'] },
  { option: 'redemption-cap', path: ['redemptionCapPointsPerCustomerDay'] },
  { option: 'stand-in', path: ['standIn', 'mode'] },
  { option: 'stand-in-after-seconds', path: ['standIn', 'afterSeconds'] },
  { option: 'stand-in-seen-minutes', path: ['standIn', 'seenMinutes'] },
  { option: 'stand-in-max-points-per-customer', path: ['standIn', 'maxPointsPerCustomer'] },
  { option: 'stand-in-max-points-per-store', path: ['standIn', 'maxPointsPerStore'] },
  { option: 'stand-in-approval-minutes', path: ['standIn', 'approvalMinutes'] },
];

/**
 * One own value as typed: `default` is null (the store takes the setting again), else checked by the file's own
 * schema for that field alone, so a bad value names the option rather than the field of the file.
 */
function ownValue(option: string, path: readonly string[], text: string): string | number | null {
  if (text === 'default') return null;
  // on/off in any case, as the CSV's stand_in column takes them.
  const value = path[path.length - 1] === 'mode' ? text.toLowerCase() : /^-?\d+$/.test(text) ? Number(text) : undefined;
  if (value === undefined) throw bad(`--${option} must be a whole number or default; got "${text}"`);
  const probe = path.length === 1 ? { [path[0]]: value } : { [path[0]]: { [path[1]]: value } };
  const checked = StoreSchema.partial().safeParse(probe);
  if (!checked.success) throw bad(`--${option} ${text}: ${checked.error.issues[0].message} (or default: the setting)`);
  return value;
}

/** What edit-store's options ask for, every value checked before the file is opened. */
function storeChangeOf(values: Values): StoreChange {
  const change: StoreChange = {
    merchantId: values['merchant-id'],
    merchantName: values['merchant-name'],
    branchId: values['branch-id'],
    branchName: values['branch-name'],
  };
  const rc = values['require-cashier'] as boolean | 'default' | undefined;
  if (rc !== undefined) change.requireCashier = rc === 'default' ? null : rc;
  for (const { option, path } of OWN_VALUES) {
    const text = values[option];
    if (typeof text !== 'string') continue;
    const value = ownValue(option, path, text);
    // Every stand-in value in the one change: several options, one write.
    Object.assign(path.length === 1 ? change : (change.standIn ??= {}), { [path[path.length - 1]]: value });
  }
  if (Object.values(change).every((v) => v === undefined)) throw bad('edit-store needs something to change (--merchant-name, --branch-name, ...)');
  return change;
}

function table(rows: string[][]): string {
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => r[c].length)));
  return rows
    .map((r) =>
      r
        .map((cell, c) => cell.padEnd(widths[c]))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

const out = (text: string) => process.stdout.write(text);

/** Where the tokens of imported terminals go: a new 0600 file (never one that exists), or standard output. */
function tokenSink(target: string | undefined): { deliver: (tokens: NewToken[]) => void; abandon: () => void; where: string } {
  if (target === undefined) {
    return {
      deliver: () => {
        throw bad('the import adds terminals: say where their tokens go with --tokens <new file> (or --tokens - for standard output)');
      },
      abandon: () => undefined,
      where: '',
    };
  }
  if (target === '-') return { deliver: (t) => out(tokensCsv(t)), abandon: () => undefined, where: 'standard output' };
  let fd: number;
  try {
    fd = openSync(target, 'wx', 0o600); // before anything is changed: an existing file is refused, never overwritten
  } catch (err) {
    const exists = (err as NodeJS.ErrnoException).code === 'EEXIST';
    throw bad(exists ? `--tokens ${target} exists; tokens are written to a new file only` : `--tokens ${target}: ${(err as Error).message}`);
  }
  let written = false;
  return {
    where: target,
    deliver: (t) => {
      writeSync(fd, tokensCsv(t));
      fsyncSync(fd);
      written = true;
    },
    abandon: () => {
      closeSync(fd);
      if (!written) rmSync(target, { force: true });
    },
  };
}

/** The terminals file and, with TERMINALS_SHARED=redis, the fleet's Redis. */
async function target(values: Values): Promise<{ file: string; fleet?: Fleet }> {
  loadDotEnv();
  // The configuration is read when it can matter: no --file, or a fleet set-up to publish to.
  let config: Config | undefined;
  if (values.file === undefined || process.env.TERMINALS_SHARED) config = loadConfig();
  const file = values.file ?? config!.pos.terminalsFile;
  if (config?.pos.terminalsShared !== 'redis') return { file };
  const { openFleet } = await import('./cli-fleet');
  return { file, fleet: await openFleet(config) };
}

const READS = new Set(['list', 'export']);

export async function runCommand(command: string, args: string[], values: Values): Promise<void> {
  // Argument mistakes are found before anything is opened.
  const role = roleOf(values.role);
  const graceMs = command === 'rotate' ? durationMs(values.grace ?? '10m') : 0;
  if (values.active && values.revoked) throw bad('--active and --revoked exclude each other');
  if (values.what !== undefined && values.what !== 'terminals' && values.what !== 'stores') throw bad('--what must be terminals or stores');
  const storeChange = command === 'edit-store' ? storeChangeOf(values) : undefined;
  const { file, fleet } = READS.has(command) ? { file: values.file ?? (loadDotEnv(), loadConfig().pos.terminalsFile), fleet: undefined } : await target(values);
  try {
    if (fleet && command !== 'publish') await fleet.checkBefore(file);
    const said = run(command, args, values, file, role, graceMs, storeChange);
    if (said) out(said);
    // Standard output carries only the JSON or the tokens when a script reads them: the publish line goes apart.
    const note = values.json || values.tokens === '-' ? (t: string) => process.stderr.write(t) : out;
    if (fleet && command !== 'publish' && readTerminalsFile(file)) note(`${await fleet.publish(file)}\n`);
    if (command === 'publish') {
      if (!fleet) throw bad('publish is for TERMINALS_SHARED=redis: without it every instance reads the file itself');
      out(`${await fleet.publish(file, { force: values.force })}\n`);
    }
  } finally {
    await fleet?.close();
  }
}

function run(
  command: string,
  args: string[],
  values: Values,
  file: string,
  role: TerminalRole | undefined,
  graceMs: number,
  storeChange: StoreChange | undefined,
): string | undefined {
  switch (command) {
    case 'add': {
      const { terminal, token } = addTerminal(file, {
        storeId: required(values, 'store'),
        role: roleOf(required(values, 'role'))!,
        label: values.label,
        id: values.id,
      });
      if (values.json) return `${JSON.stringify({ terminalId: terminal.id, storeId: terminal.storeId, role: terminal.role, token })}\n`;
      return (
        `Terminal ${terminal.id} created (${terminal.role}, store ${terminal.storeId}) in ${file}.\n` +
        `Its token is shown this once and cannot be recovered; put it on the terminal now:\n\n${token}\n\n` +
        `To revoke it: ${revokeTerminalCommand(terminalCommand(), terminal.id, values.file)}\n`
      );
    }
    case 'list': {
      const status: TerminalStatus | undefined = values.active ? 'active' : values.revoked ? 'revoked' : undefined;
      const terminals = listTerminals(file, { storeId: values.store, role, status });
      if (values.json) return `${JSON.stringify(terminals, null, 2)}\n`;
      if (terminals.length === 0) return `No terminals${values.store || role || status ? ' match' : ''} in ${file}.\n`;
      const rows = terminals.map((t) => [t.id, t.storeId, t.role, t.status, t.hashPrefix, t.createdAt, t.revokedAt ?? '', t.label ?? '']);
      return `${table([['ID', 'STORE', 'ROLE', 'STATUS', 'HASH', 'CREATED', 'REVOKED', 'LABEL'], ...rows])}\n`;
    }
    case 'revoke': {
      const { terminal, alreadyRevoked } = revokeTerminal(file, args[0]);
      return alreadyRevoked
        ? `Terminal ${terminal.id} was already revoked at ${terminal.revokedAt}.\n`
        : `Terminal ${terminal.id} revoked; running instances refuse its token from their next check (about a second).\n`;
    }
    case 'rotate': {
      const { terminal, token, previousValidUntil } = rotateTerminal(file, args[0], graceMs);
      if (values.json) return `${JSON.stringify({ terminalId: terminal.id, token, previousValidUntil: previousValidUntil ?? null })}\n`;
      return (
        `Terminal ${terminal.id} has a new token, shown this once; put it on the terminal:\n\n${token}\n\n` +
        (previousValidUntil ? `Its old token is accepted until ${previousValidUntil}, then refused.\n` : 'Its old token is refused from now on.\n')
      );
    }
    case 'add-store': {
      const store = addStore(file, {
        id: required(values, 'id'),
        merchant: { uniqueId: required(values, 'merchant-id'), name: required(values, 'merchant-name') },
        branch: { uniqueId: required(values, 'branch-id'), name: required(values, 'branch-name') },
        ...(values['require-cashier'] ? { requireCashier: true } : {}),
      });
      return `Store ${store.id} added (${store.merchant.name} / ${store.branch.name}) in ${file}.\n`;
    }
    case 'edit-store': {
      const store = editStore(file, args[0], storeChange!);
      return `Store ${store.id} changed: ${JSON.stringify(store)}\n`;
    }
    case 'remove-store': {
      const { store, revoked } = removeStore(file, args[0], { revokeTerminals: values['revoke-terminals'] });
      return `Store ${store.id} removed${revoked.length ? `; its ${revoked.length} terminal(s) revoked: ${revoked.join(', ')}` : ''}.\n`;
    }
    case 'import': {
      const sources = args.map((name) => {
        try {
          return { name, text: readFileSync(name, 'utf8') };
        } catch (err) {
          throw bad(`${name}: cannot be read (${(err as Error).message})`);
        }
      });
      const sink = tokenSink(values.tokens);
      try {
        const r = importCsv(file, sources, sink.deliver);
        // With --tokens - the tokens are on standard output: the summary goes to standard error, apart from them.
        const say = values.tokens === '-' ? (t: string) => process.stderr.write(t) : out;
        say(
          `Imported into ${file}: ${r.storesAdded.length} store(s) added, ${r.storesUnchanged.length} already there; ` +
            `${r.terminalsAdded.length} terminal(s) added, ${r.terminalsUnchanged.length} already there.\n` +
            (r.terminalsAdded.length
              ? `The new terminals' tokens are in ${sink.where}, this once; hand them to the tills and keep the file nowhere else.\n`
              : ''),
        );
        return undefined;
      } finally {
        sink.abandon();
      }
    }
    case 'export': {
      const data = readTerminalsFile(file) ?? { stores: [], terminals: [] };
      return exportCsv(data, (values.what as 'stores' | 'terminals' | undefined) ?? 'terminals');
    }
    case 'publish':
      return undefined;
  }
  return undefined;
}
