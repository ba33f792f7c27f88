import { writeFileSync } from 'node:fs';
import os from 'node:os';
import type { Logger } from 'pino';
import { changedSettings, ConfigError, describeConfig, loadDotEnv, readConfig, settingsOfMode, type Config } from './platform/config';
import { createLogger } from './platform/logger';
import { addTerminalCommands, revokeTerminalCommand, terminalCommand } from './platform/operator-commands';
import { onShutdownSignals } from './platform/shutdown';
import { routeStrayOutput } from './platform/stray-output';
import { startBff, UpstreamTarget, type RunningBff } from './pos/server';
import { ensureDemoSetup } from './pos/terminals';
import { AccountSettings, loadSandboxAccounts, startSandbox, StartedSandbox } from './sandbox';
import { problemEntries, startupProblems, type Mode } from './startup-problems';

/** The logger start-up failures are reported through, once there is one. */
let reporter: { logger: Logger; pretty: boolean } | undefined;

/**
 * The program main.ts starts once the Node check passed. By default: the BFF
 * with the bundled sandbox as its upstream. `--sandbox-only` runs the sandbox
 * alone; `--bff-only` requires LOYALTY_BASE_URL.
 */
async function main(argv: string[]): Promise<void> {
  const mode: Mode = argv.includes('--sandbox-only') ? 'sandbox' : argv.includes('--bff-only') ? 'bff' : 'both';
  // `.env` first (values already in the environment win), then every setting is read once, every problem kept.
  const envFile = loadDotEnv();
  const { config, problems: settingProblems } = readConfig();
  const logger = loggerFor(config, settingProblems);
  routeStrayOutput(logger);
  const refused = await startupProblems(config, settingProblems, mode, logger);
  if (refused.length) throw new ConfigError(refused);
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

  let bff: RunningBff | undefined;
  if (mode !== 'sandbox') {
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
    const running = await startBff(config, upstream, logger).catch((err: unknown) => {
      const ops = (err as { setting?: string }).setting === 'OPS_PORT';
      return Promise.reject(
        ops ? portProblem(err, 'OPS_PORT', config.ops.host, config.ops.port ?? 0) : portProblem(err, 'PORT', config.http.host, config.http.port),
      );
    });
    bff = running;
    closers.unshift(() => running.close());
    logger.info(listening(config, running), 'POS BFF listening');
    // A fresh install (the image, the pruned build) starts before its first terminal: it stays up, not
    // ready (/readyz names `terminals`), and says how to add one; once added it is served without a restart.
    if (running.registry.activeTerminals() === 0) {
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

  const serving = bff;
  onShutdownSignals({
    logger,
    // The grace is for a balancer in front of the BFF; the sandbox alone has none.
    graceMs: serving ? config.http.shutdownGraceSeconds * 1000 : 0,
    drainTimeoutMs: config.http.shutdownTimeoutMs,
    leave: () => serving?.beginShutdown(),
    closers,
    exit: (code) => process.exit(code),
  });
}

/**
 * The logger the settings ask for; while LOG_LEVEL or LOG_PRETTY is itself wrong (or pretty cannot
 * load), JSON at info, so the report of what is wrong still reaches the log pipeline.
 */
function loggerFor(config: Config, problems: string[]): Logger {
  const logSettingsBad = problems.some((p) => /^LOG_(LEVEL|PRETTY)\b/.test(p));
  const wanted = logSettingsBad ? { level: 'info', pretty: false } : { level: config.log.level, pretty: config.log.pretty };
  try {
    reporter = { logger: createLogger(wanted), pretty: wanted.pretty };
  } catch {
    reporter = { logger: createLogger({ level: 'info', pretty: false }), pretty: false };
  }
  return reporter.logger;
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

/**
 * Runs the program; a configuration problem exits 2, anything else 1. Either is reported once: as one JSON
 * line listing every problem with its setting (JSON logs), or as a readable list on stderr (LOG_PRETTY).
 */
export function start(argv: string[]): Promise<void> {
  return main(argv).catch((err: unknown) => {
    const code = err instanceof ConfigError ? 2 : 1;
    // A failure before the settings were read (.env unreadable) has no logger yet: JSON unless the environment asks otherwise.
    reporter ??= { logger: createLogger({ level: 'info', pretty: false }), pretty: process.env.LOG_PRETTY === 'true' };
    if (reporter.pretty) {
      process.stderr.write(err instanceof ConfigError ? `${err.message}\n` : `Start-up failed: ${err instanceof Error ? err.message : String(err)}\n`);
    } else if (err instanceof ConfigError) {
      const count = err.problems.length;
      reporter.logger.fatal(
        { problems: problemEntries(err.problems) },
        `Invalid configuration: ${count} problem${count === 1 ? '' : 's'}, each naming its setting and what to do; nothing started`,
      );
    } else {
      reporter.logger.fatal({ err }, `Start-up failed: ${err instanceof Error ? err.message : String(err)}`);
    }
    reporter.logger.flush?.();
    process.exit(code);
  });
}
