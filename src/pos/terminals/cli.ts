/**
 * Manages POS terminals and stores in the terminals file. Compiled into the
 * image (dist/pos/terminals/cli.js, on PATH there as `terminal`), run from a
 * checkout with `npm run terminal -- <command>` (scripts/terminal.ts), from a
 * pruned build with `node dist/pos/terminals/cli.js`; what it prints names
 * itself as the install runs it (platform/operator-commands.ts).
 * Exit codes: 0 done, 1 refused (unknown store, duplicate, unusable file), 2 bad arguments.
 */
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig, loadDotEnv } from '../../platform/config';
import { revokeTerminalCommand, terminalCommand } from '../../platform/operator-commands';
import { BadRequestError, isAppError } from '../../platform/errors';
import { addStore, addTerminal, listTerminals, revokeTerminal } from './operations';
import { TERMINAL_ROLES, type TerminalRole } from './types';
import { REPORT_USAGE, runReportCli } from '../reconciliation/cli';

const usage = () => `usage: ${terminalCommand()} <command> [options]

commands:
  add --store <storeId> --role cashier|manager|kiosk [--label <text>] [--id <terminalId>] [--json]
      create a terminal and print its token (shown once, never stored)
  list [--json]
      list terminals (never their tokens; at most 8 hex characters of a hash)
  revoke <terminalId>
      revoke a terminal; a running BFF refuses its token within a second or so
  add-store --id <storeId> --merchant-id <id> --merchant-name <name> --branch-id <id> --branch-name <name> [--require-cashier]
      add a store (the merchant and branch the loyalty service knows); --require-cashier: its tills must send X-Cashier-Id and X-Shift-Id
${REPORT_USAGE}

every terminal command takes --file <path> (default: TERMINALS_FILE, else config/terminals.json)`;

class UsageError extends Error {}

const OPTIONS = {
  file: { type: 'string' },
  store: { type: 'string' },
  role: { type: 'string' },
  label: { type: 'string' },
  id: { type: 'string' },
  json: { type: 'boolean' },
  'merchant-id': { type: 'string' },
  'merchant-name': { type: 'string' },
  'branch-id': { type: 'string' },
  'branch-name': { type: 'string' },
  'require-cashier': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

type Values = { [K in keyof typeof OPTIONS]?: (typeof OPTIONS)[K]['type'] extends 'boolean' ? boolean : string };

const ALLOWED: Record<string, (keyof typeof OPTIONS)[]> = {
  add: ['file', 'store', 'role', 'label', 'id', 'json'],
  list: ['file', 'json'],
  revoke: ['file'],
  'add-store': ['file', 'id', 'merchant-id', 'merchant-name', 'branch-id', 'branch-name', 'require-cashier'],
};

function required(values: Values, name: keyof Values): string {
  const v = values[name];
  if (typeof v !== 'string' || v.trim() === '') throw new UsageError(`missing --${name}`);
  return v;
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

function run(argv: string[]): void {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const values = parsed.values as Values;
  const [command, ...rest] = parsed.positionals;
  if (values.help) {
    process.stdout.write(`${usage()}\n`);
    return;
  }
  if (!command || !(command in ALLOWED)) throw new UsageError(command ? `unknown command "${command}"` : 'no command given');
  const stray = Object.keys(values).filter((k) => !ALLOWED[command].includes(k as keyof typeof OPTIONS));
  if (stray.length) throw new UsageError(`${command} does not take --${stray.join(', --')}`);
  if (command !== 'revoke' && rest.length) throw new UsageError(`unexpected argument "${rest[0]}"`);
  // The same TERMINALS_FILE as the BFF: the environment, else .env, else the default.
  const file = values.file ?? (loadDotEnv(), loadConfig().pos.terminalsFile);

  switch (command) {
    case 'add': {
      const storeId = required(values, 'store');
      const role = required(values, 'role');
      if (!TERMINAL_ROLES.includes(role as TerminalRole)) throw new UsageError(`--role must be one of ${TERMINAL_ROLES.join(', ')}`);
      const { terminal, token } = addTerminal(file, { storeId, role: role as TerminalRole, label: values.label, id: values.id });
      if (values.json) {
        process.stdout.write(`${JSON.stringify({ terminalId: terminal.id, storeId: terminal.storeId, role: terminal.role, token })}\n`);
      } else {
        process.stdout.write(
          `Terminal ${terminal.id} created (${terminal.role}, store ${terminal.storeId}) in ${file}.\n` +
            `Its token is shown this once and cannot be recovered; put it on the terminal now:\n\n${token}\n\n` +
            `To revoke it: ${revokeTerminalCommand(terminalCommand(), terminal.id, values.file)}\n`,
        );
      }
      return;
    }
    case 'list': {
      const terminals = listTerminals(file);
      if (values.json) {
        process.stdout.write(`${JSON.stringify(terminals, null, 2)}\n`);
      } else if (terminals.length === 0) {
        process.stdout.write(`No terminals in ${file}.\n`);
      } else {
        const rows = terminals.map((t) => [t.id, t.storeId, t.role, t.status, t.hashPrefix, t.createdAt, t.revokedAt ?? '', t.label ?? '']);
        process.stdout.write(`${table([['ID', 'STORE', 'ROLE', 'STATUS', 'HASH', 'CREATED', 'REVOKED', 'LABEL'], ...rows])}\n`);
      }
      return;
    }
    case 'revoke': {
      if (rest.length !== 1) throw new UsageError('revoke takes exactly one terminal id');
      const { terminal, alreadyRevoked } = revokeTerminal(file, rest[0]);
      process.stdout.write(
        alreadyRevoked
          ? `Terminal ${terminal.id} was already revoked at ${terminal.revokedAt}.\n`
          : `Terminal ${terminal.id} revoked; a running BFF refuses its token from its next file check (about a second).\n`,
      );
      return;
    }
    case 'add-store': {
      const store = addStore(file, {
        id: required(values, 'id'),
        merchant: { uniqueId: required(values, 'merchant-id'), name: required(values, 'merchant-name') },
        branch: { uniqueId: required(values, 'branch-id'), name: required(values, 'branch-name') },
        ...(values['require-cashier'] ? { requireCashier: true } : {}),
      });
      process.stdout.write(`Store ${store.id} added (${store.merchant.name} / ${store.branch.name}) in ${file}.\n`);
      return;
    }
  }
}

export function runCli(argv: string[]): void {
  // The report commands read Redis and the loyalty service: asynchronous, in their own module.
  if (argv[0] === 'audit' || argv[0] === 'reconcile') return void runReportCli(argv);
  try {
    run(argv);
  } catch (err) {
    if (err instanceof UsageError || err instanceof BadRequestError) {
      process.stderr.write(`error: ${err.message}\n\n${usage()}\n`);
      process.exitCode = 2;
    } else if (err instanceof ConfigError || isAppError(err)) {
      process.stderr.write(`error: ${err.message}\n`);
      process.exitCode = 1;
    } else {
      throw err;
    }
  }
}

if (require.main === module) runCli(process.argv.slice(2));
