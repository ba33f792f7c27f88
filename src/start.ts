import { writeFileSync } from 'node:fs';
import os from 'node:os';
import { changedSettings, ConfigError, describeConfig, loadConfig, loadDotEnv, settingsOfMode, type Config } from './platform/config';
import { createLogger } from './platform/logger';
import { addTerminalCommands, revokeTerminalCommand, terminalCommand } from './platform/operator-commands';
import { productionProblems, redisDurability } from './platform/production';
import { startBff, UpstreamTarget, type RunningBff } from './pos/server';
import { ensureDemoSetup } from './pos/terminals';
import { AccountSettings, loadSandboxAccounts, startSandbox, StartedSandbox } from './sandbox';

type Mode = 'sandbox' | 'bff' | 'both';

/**
 * The program main.ts starts once the Node check passed. By default: the BFF
 * with the bundled sandbox as its upstream. `--sandbox-only` runs the sandbox
 * alone; `--bff-only` requires LOYALTY_BASE_URL.
 */
async function main(argv: string[]): Promise<void> {
  const mode: Mode = argv.includes('--sandbox-only') ? 'sandbox' : argv.includes('--bff-only') ? 'bff' : 'both';
  // `.env` first (values already in the environment win), then every setting is validated once.
  const envFile = loadDotEnv();
  const config = loadConfig();
  const refused = mode === 'sandbox' ? [] : [...productionProblems(config), ...portClash(config, mode)];
  if (refused.length) throw new ConfigError(refused);
  const logger = createLogger({ level: config.log.level, pretty: config.log.pretty });
  // The settings this mode uses, secrets masked: the whole block for a person at a terminal; for a log
  // pipeline one line of what differs from the defaults, so every restart says what was chosen, briefly.
  const shown = settingsOfMode(config, mode);
  if (config.log.pretty) process.stdout.write(`\n${describeConfig(shown).join('\n')}\n\n`);
  else logger.info({ mode, envFile: envFile ?? null, config: changedSettings(shown) }, 'effective configuration (settings not at their defaults)');
  const closers: (() => Promise<void>)[] = [];

  let sandbox: StartedSandbox | undefined;
  let accounts: AccountSettings[] = [];
  if (mode === 'sandbox' || (mode === 'both' && !config.loyalty.baseUrl)) {
    accounts = loadSandboxAccounts(config.sandbox.accountsFile);
    const started: StartedSandbox = await startSandbox({
      accounts,
      logger: logger.child({ program: 'sandbox' }),
      bodyLimitBytes: config.sandbox.bodyLimitBytes,
      host: config.sandbox.host,
      port: config.sandbox.port,
    }).catch((err) => Promise.reject(portProblem(err, 'SANDBOX_PORT', config.sandbox.host, config.sandbox.port)));
    sandbox = started;
    closers.push(() => started.close());
    logger.info({ url: started.url, accounts: accounts.length }, 'loyalty sandbox listening');
  }

  if (mode !== 'sandbox') {
    const undurable = await redisDurability(config, logger);
    if (undurable.length) throw new ConfigError(undurable);
    let upstream: UpstreamTarget;
    if (config.loyalty.baseUrl) {
      upstream = { baseUrl: config.loyalty.baseUrl, apiKey: config.loyalty.apiKey!, secretKey: config.loyalty.secretKey! };
    } else if (sandbox) {
      // The BFF uses the first sandbox account unless keys are configured.
      const account = accounts[0];
      const apiKey = config.loyalty.apiKey ?? account.apiKey;
      const running = sandbox;
      // The account's own OTP setting, read live (PUT /_sandbox/accounts changes it), so the two never disagree.
      upstream = {
        baseUrl: sandbox.url,
        apiKey,
        secretKey: config.loyalty.secretKey ?? account.secretKey,
        otpRequired: () => running.context.store.account(apiKey)?.settings.otpEnabled ?? false,
      };
    } else {
      throw new ConfigError(['LOYALTY_BASE_URL: required with --bff-only']);
    }
    const localUrl = `${config.http.tls ? 'https' : 'http'}://localhost:${config.http.port}`;
    if (config.pos.demoSetup) printDemoTokens(config, localUrl);
    if (config.pos.redemptionProof === 'none') {
      logger.warn(
        { setting: 'REDEMPTION_PROOF' },
        "REDEMPTION_PROOF=none: a till can spend any customer's points by typing their id; use hash_or_otp (the default) unless every till is trusted",
      );
    }
    if (!config.redis.target && config.env === 'production') {
      logger.warn(
        { setting: 'ALLOW_IN_MEMORY_STORE' },
        'ALLOW_IN_MEMORY_STORE=true: production without Redis, a single-instance trial. A restart loses open redemptions, Idempotency-Keys and queued writes; never run a second instance',
      );
    }
    const bff = await startBff(config, upstream, logger).catch((err: unknown) => {
      const ops = (err as { setting?: string }).setting === 'OPS_PORT';
      return Promise.reject(
        ops ? portProblem(err, 'OPS_PORT', config.ops.host, config.ops.port ?? 0) : portProblem(err, 'PORT', config.http.host, config.http.port),
      );
    });
    closers.unshift(() => bff.close());
    logger.info(listening(config, bff), 'POS BFF listening');
    // A fresh install (the image, the pruned build) starts before its first terminal: it stays up, not
    // ready (/readyz names `terminals`), and says how to add one; once added it is served without a restart.
    if (bff.registry.activeTerminals() === 0) {
      const command = terminalCommand(config.pos.terminalCommand);
      const commands = addTerminalCommands(command, config.pos.terminalsFile);
      // Shared through Redis: the registry may be in the operator's file elsewhere, not yet published.
      const shared = config.pos.terminalsShared === 'redis' ? ` With TERMINALS_SHARED=redis, where the file is kept: ${command} publish.` : '';
      logger.warn(
        { setting: 'TERMINALS_FILE', file: config.pos.terminalsFile, commands },
        `No terminal can call yet: ${config.pos.terminalsFile} has no active terminal. Not ready until one is added; add a store and a terminal: ${commands.join(' ; ')}.${shared}`,
      );
    }
  }

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    const startedAt = Date.now();
    logger.info({ signal, timeoutMs: config.http.shutdownTimeoutMs }, 'shutting down: no new connections; finishing requests in flight');
    // The bound: requests still running after it are cut off, and the exit code says so.
    const timer = setTimeout(() => {
      logger.error({ timeoutMs: config.http.shutdownTimeoutMs }, 'shutdown took too long; exiting');
      logger.flush?.();
      process.exit(1);
    }, config.http.shutdownTimeoutMs);
    timer.unref();
    for (const close of closers) await close().catch((err) => logger.error({ err }, 'error while closing'));
    logger.info({ durationMs: Date.now() - startedAt }, 'shutdown complete');
    logger.flush?.();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

/** Where the BFF listens and what it serves where: the address it binds, and one a person can use. */
function listening(config: Config, bff: RunningBff): Record<string, unknown> {
  const wildcard = config.http.host === '0.0.0.0' || config.http.host === '::';
  const scheme = config.http.tls ? 'https' : 'http';
  // A wildcard bind is reached at this machine's name (or any of its addresses), not at 127.0.0.1 alone.
  const url = wildcard ? `${scheme}://${os.hostname()}:${bff.port}` : bff.url;
  const where = (place: string, path: string, setting: string) =>
    place === 'cashier_port' ? `${url}${path}` : place === 'ops_port' && bff.ops ? `${bff.ops.url}${path}` : `off (${setting})`;
  return {
    listening: `${config.http.host.includes(':') ? `[${config.http.host}]` : config.http.host}:${bff.port}`,
    cashierApi: `${url}/pos/v1`,
    docs: where(config.ops.docs, '/docs', 'DOCS_ON'),
    metrics: where(config.ops.metrics, '/metrics', 'METRICS_ON'),
    upstream: config.loyalty.baseUrl ? 'configured loyalty service' : 'bundled sandbox',
    redis: config.redis.target?.kind ?? (config.env === 'production' ? 'memory (ALLOW_IN_MEMORY_STORE)' : 'memory'),
    redemptionProof: config.pos.redemptionProof,
    otpMode: otpModeShown(config),
  };
}

/** OTP_MODE as it works here: the operator's word, the sandbox account read live, or learnt for a while. */
function otpModeShown(config: Config): string {
  const mode = config.pos.otpMode;
  if (mode !== 'auto') return `${mode} (OTP_MODE, believed)`;
  if (!config.loyalty.baseUrl) return "auto (the bundled sandbox account's setting, read live)";
  return `auto (learnt from hold answers, re-checked after ${config.pos.otpModeRecheckMinutes} min)`;
}

/** The bundled sandbox and the cashier API on one port: the second to bind would be blamed on the wrong setting. */
function portClash(config: Config, mode: Mode): string[] {
  const bundled = mode === 'both' && !config.loyalty.baseUrl;
  if (!bundled || config.http.port === 0 || config.http.port !== config.sandbox.port) return [];
  return [`SANDBOX_PORT: ${config.sandbox.port} is PORT too; the bundled sandbox and the cashier API need a port each: set SANDBOX_PORT (or PORT) to another`];
}

/** A port already taken is named by its setting, so the fix is obvious. */
function portProblem(err: unknown, setting: string, host: string, port: number): unknown {
  const code = (err as NodeJS.ErrnoException)?.code;
  if (code === 'EADDRINUSE')
    return new ConfigError([`${setting}: port ${port} on ${host} is already in use (another copy running?); stop it or set ${setting} to a free port`]);
  if (code === 'EACCES') return new ConfigError([`${setting}: not allowed to listen on port ${port} on ${host}; use a port above 1023 or set ${setting}`]);
  return err;
}

/** On a fresh checkout, creates demo stores and terminals and shows their tokens once (not through the logger). */
function printDemoTokens(config: Config, baseUrl: string) {
  const file = config.pos.terminalsFile;
  const { created, tokens } = ensureDemoSetup(file);
  if (!created) return;
  const lines = tokens.map((t) => `  ${t.role.padEnd(8)} ${t.terminalId.padEnd(22)} store ${t.storeId}  token ${t.token}`);
  const envFile = file.replace(/\.json$/, '') + '.demo-tokens.env';
  const env = tokens.map((t) => `${t.role.toUpperCase()}${t.storeId === tokens[0].storeId ? '' : '_OTHER_STORE'}_TOKEN=${t.token}`).join('\n');
  writeFileSync(envFile, env + '\n', { mode: 0o600 });
  const command = terminalCommand(config.pos.terminalCommand);
  process.stdout.write(
    `\nCreated demo stores and terminals in ${file}. These tokens are shown once (also saved to ${envFile}):\n${lines.join('\n')}\n` +
      `Cashier API: ${baseUrl}/pos/v1   (try: curl -H "Authorization: Bearer <token>" ${baseUrl}/pos/v1/customers/demo-customer)\n` +
      `API reference: ${baseUrl}/docs\n` +
      `Terminals: ${command} list; revoke one with ${revokeTerminalCommand(command, '<terminalId>', file)}\n\n`,
  );
}

/** Runs the program; a configuration problem exits 2 with the message, anything else 1. */
export function start(argv: string[]): Promise<void> {
  return main(argv).catch((err) => {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(2);
    }
    process.stderr.write(`Start-up failed: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}
