import { parseArgs } from 'node:util';

/** The terminal CLI's command line: its options, commands, usage and parsing (node: modules only, loaded up front). */
export const OPTIONS = {
  file: { type: 'string' },
  store: { type: 'string' },
  role: { type: 'string' },
  label: { type: 'string' },
  id: { type: 'string' },
  json: { type: 'boolean' },
  active: { type: 'boolean' },
  revoked: { type: 'boolean' },
  grace: { type: 'string' },
  tokens: { type: 'string' },
  what: { type: 'string' },
  force: { type: 'boolean' },
  'revoke-terminals': { type: 'boolean' },
  'merchant-id': { type: 'string' },
  'merchant-name': { type: 'string' },
  'branch-id': { type: 'string' },
  'branch-name': { type: 'string' },
  'require-cashier': { type: 'boolean' },
  'till-wait-seconds': { type: 'string' },
  'redemption-cap': { type: 'string' },
  'stand-in': { type: 'string' },
  'stand-in-after-seconds': { type: 'string' },
  'stand-in-seen-minutes': { type: 'string' },
  'stand-in-max-points-per-customer': { type: 'string' },
  'stand-in-max-points-per-store': { type: 'string' },
  'stand-in-approval-minutes': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

export type Values = { [K in keyof typeof OPTIONS]?: (typeof OPTIONS)[K]['type'] extends 'boolean' ? boolean : string };

const STORE_FIELDS = ['merchant-id', 'merchant-name', 'branch-id', 'branch-name'] as const;
const STAND_IN_FIELDS = [
  'stand-in',
  'stand-in-after-seconds',
  'stand-in-seen-minutes',
  'stand-in-max-points-per-customer',
  'stand-in-max-points-per-store',
  'stand-in-approval-minutes',
] as const;

/** The options each command takes, and how many positional arguments (a terminal or store id, CSV files). */
export const COMMANDS: Record<string, { options: (keyof typeof OPTIONS)[]; args: [min: number, max: number] }> = {
  add: { options: ['file', 'store', 'role', 'label', 'id', 'json'], args: [0, 0] },
  list: { options: ['file', 'json', 'store', 'role', 'active', 'revoked'], args: [0, 0] },
  revoke: { options: ['file'], args: [1, 1] },
  rotate: { options: ['file', 'grace', 'json'], args: [1, 1] },
  'add-store': { options: ['file', 'id', ...STORE_FIELDS, 'require-cashier'], args: [0, 0] },
  'edit-store': { options: ['file', ...STORE_FIELDS, 'require-cashier', 'till-wait-seconds', 'redemption-cap', ...STAND_IN_FIELDS], args: [1, 1] },
  'remove-store': { options: ['file', 'revoke-terminals'], args: [1, 1] },
  import: { options: ['file', 'tokens'], args: [1, 20] },
  export: { options: ['file', 'what'], args: [0, 0] },
  publish: { options: ['file', 'force'], args: [0, 0] },
};

export const usage = (command: string, reportUsage = '  audit ... | reconcile ...  (see: audit --help)') => `usage: ${command} <command> [options]

commands:
  add --store <storeId> --role cashier|manager|kiosk [--label <text>] [--id <terminalId>] [--json]
      create a terminal and print its token (shown once, never stored)
  list [--store <storeId>] [--role <role>] [--active | --revoked] [--json]
      list terminals (never their tokens; at most 8 hex characters of a hash)
  revoke <terminalId>
      revoke a terminal; running instances refuse its token within a second or so
  rotate <terminalId> [--grace 10m] [--json]
      give a terminal a new token (printed once); the old one is accepted for the grace (s, m, h or d; 0: not at all)
  add-store --id <storeId> --merchant-id <id> --merchant-name <name> --branch-id <id> --branch-name <name> [--require-cashier]
      add a store (the merchant and branch the loyalty service knows); --require-cashier: its tills must send X-Cashier-Id and X-Shift-Id
  edit-store <storeId> [--merchant-id <id>] [--merchant-name <name>] [--branch-id <id>] [--branch-name <name>]
             [--require-cashier | --no-require-cashier | --require-cashier=default] [--till-wait-seconds <1..120>|default]
             [--redemption-cap <points>|default] [--stand-in on|off|default] [--stand-in-after-seconds <0..3600>|default]
             [--stand-in-seen-minutes <1..1440>|default] [--stand-in-max-points-per-customer <points>|default]
             [--stand-in-max-points-per-store <points>|default] [--stand-in-approval-minutes <0..60>|default]
      change a store; "default": the store takes the setting (CASHIER_ID_REQUIRED, TILL_WAIT_SECONDS,
      REDEMPTION_CAP_POINTS_PER_CUSTOMER_DAY, STAND_IN, STAND_IN_AFTER_SECONDS, ...) again; --redemption-cap 0: no cap
      at this store; the stand-in values given are changed together, the others kept
  remove-store <storeId> [--revoke-terminals]
      remove a store; refused while it has terminals not revoked, unless --revoke-terminals revokes them with it
  import <csv>... [--tokens <new file> | --tokens -]
      add stores and terminals from CSV files (one command for thousands); every row is checked first and every bad
      row reported with its line, nothing written if any is bad; rows already there unchanged are skipped; the new
      terminals' tokens go once to --tokens (a new file, created 0600; - for standard output), never to a log
  export [--what terminals|stores]
      the terminals (default) or the stores as CSV on standard output; never a token or a hash
  publish [--force]
      TERMINALS_SHARED=redis: publish the file to Redis again (after Redis lost it, or a hand edit); --force: make this
      file the fleet's newest even though Redis holds a newer generation
${reportUsage}

every terminal command takes --file <path> (default: TERMINALS_FILE, else config/terminals.json); with
TERMINALS_SHARED=redis every change is written to the file, then published to Redis`;

export class UsageError extends Error {}

/** Parses the command line; a UsageError says what is wrong with it. */
export function parseCommandLine(argv: string[]): { command: string; args: string[]; values: Values } | { help: true } {
  // --require-cashier=default (edit-store) is a string for a boolean option: take it apart before parseArgs.
  const defaults = new Set<string>();
  const rest = argv.filter((a) => (/^--(require-cashier|till-wait-seconds|redemption-cap)=default$/.test(a) ? (defaults.add(a.slice(2, -8)), false) : true));
  let parsed;
  try {
    parsed = parseArgs({ args: rest, options: OPTIONS, allowPositionals: true, allowNegative: true, strict: true });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const values = parsed.values as Values & Record<string, unknown>;
  if (values.help) return { help: true };
  const [command, ...args] = parsed.positionals;
  if (!command || !(command in COMMANDS)) throw new UsageError(command ? `unknown command "${command}"` : 'no command given');
  const spec = COMMANDS[command];
  const given = [...Object.keys(values), ...defaults];
  const stray = given.filter((k) => !spec.options.includes(k as keyof typeof OPTIONS));
  if (stray.length) throw new UsageError(`${command} does not take --${stray.join(', --')}`);
  if (args.length < spec.args[0])
    throw new UsageError(`${command} needs ${spec.args[0] === 1 && spec.args[1] === 1 ? 'one argument' : 'at least one argument'}`);
  if (args.length > spec.args[1]) throw new UsageError(`unexpected argument "${args[spec.args[1]]}"`);
  if (command === 'add-store' && values['require-cashier'] === false)
    throw new UsageError('add-store does not take --no-require-cashier (a new store has no own value)');
  for (const d of defaults) (values as Record<string, unknown>)[d] = 'default';
  return { command, args, values };
}
