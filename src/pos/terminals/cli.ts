/**
 * Manages POS terminals and stores in the terminals file. Compiled into the
 * image (dist/pos/terminals/cli.js, on PATH there as `terminal`), run from a
 * checkout with `npm run terminal -- <command>` (scripts/terminal.ts), from a
 * pruned build with `node dist/pos/terminals/cli.js`; what it prints names
 * itself as the install runs it (platform/operator-commands.ts).
 * Exit codes: 0 done, 1 refused (unknown store, duplicate, bad CSV rows, unusable file, Redis), 2 bad arguments.
 *
 * Only node: modules and the command line (cli-args.ts) are loaded up front: the commands' modules (zod, the configuration, the Redis client,
 * the report commands) are loaded by the command that needs them, so a `list` does not pay for the rest.
 */
import { enableCompileCache } from 'node:module';
import { parseCommandLine, usage, UsageError } from './cli-args';

// V8's compiled code kept between runs (in the OS temp directory): a CLI run is mostly start-up.
enableCompileCache?.();

export async function runCli(argv: string[]): Promise<void> {
  // The report commands read Redis and the loyalty service, in their own module.
  if (argv[0] === 'audit' || argv[0] === 'reconcile') return void (await import('../reconciliation/cli')).runReportCli(argv);
  const { terminalCommand } = await import('../../platform/operator-commands');
  const help = async () => usage(terminalCommand(), (await import('../reconciliation/cli')).REPORT_USAGE);
  try {
    const line = parseCommandLine(argv);
    if ('help' in line) return void process.stdout.write(`${await help()}\n`);
    const { runCommand } = await import('./cli-commands');
    await runCommand(line.command, line.args, line.values);
  } catch (err) {
    const { ConfigError } = await import('../../platform/config');
    const { BadRequestError, isAppError } = await import('../../platform/errors');
    if (err instanceof UsageError || err instanceof BadRequestError) {
      process.stderr.write(`error: ${err.message}\n\n${await help()}\n`);
      process.exitCode = 2;
    } else if (err instanceof ConfigError || isAppError(err)) {
      process.stderr.write(`error: ${err.message}\n`);
      process.exitCode = 1;
    } else {
      throw err;
    }
  }
}

if (require.main === module) void runCli(process.argv.slice(2));
