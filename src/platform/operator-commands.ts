import path from 'node:path';

/**
 * The terminal CLI as an operator runs it where this program runs, for every
 * hint the program prints: a source checkout has `npm run terminal --` (tsx),
 * a pruned production install only `node dist/...` (no tsx, no scripts), and
 * the image and compose.yaml say theirs through TERMINAL_COMMAND.
 */
export function terminalCommand(configured: string | undefined = process.env.TERMINAL_COMMAND || undefined): string {
  if (configured) return configured;
  // Running from TypeScript (tsx, jest) means a checkout with its dev dependencies.
  if (__filename.endsWith('.ts')) return 'npm run terminal --';
  const cli = path.relative(process.cwd(), path.join(__dirname, '..', 'pos', 'terminals', 'cli.js'));
  return `node ${/\s/.test(cli) ? JSON.stringify(cli) : cli}`;
}

/** The default terminals file; a hint names any other with --file, so it reaches the file the BFF reads. */
export const DEFAULT_TERMINALS_FILE = 'config/terminals.json';

function fileOption(file: string | undefined): string {
  if (!file || file === DEFAULT_TERMINALS_FILE) return '';
  return ` --file ${/[\s"'$`\\]/.test(file) ? JSON.stringify(file) : file}`;
}

/** The two commands that give a fresh install a store and its first terminal. */
export function addTerminalCommands(command: string, file?: string): string[] {
  const f = fileOption(file);
  return [
    `${command} add-store${f} --id store-001 --merchant-id <merchant-id> --merchant-name "<merchant-name>" --branch-id <branch-id> --branch-name "<branch-name>"`,
    `${command} add${f} --store store-001 --role cashier`,
  ];
}

/** The command that revokes `terminalId`. */
export function revokeTerminalCommand(command: string, terminalId: string, file?: string): string {
  return `${command} revoke${fileOption(file)} ${terminalId}`;
}
