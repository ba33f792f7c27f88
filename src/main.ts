import { writeFileSync } from 'node:fs';
import { configSummary, ConfigError, describeConfig, loadConfig, loadDotEnv } from './platform/config';
import { createLogger } from './platform/logger';
import { startBff, UpstreamTarget } from './pos/server';
import { ensureDemoSetup, readTerminalsFile } from './pos/terminals';
import { AccountSettings, loadSandboxAccounts, startSandbox, StartedSandbox } from './sandbox';

/**
 * Entry point. By default: the BFF with the bundled sandbox as its upstream.
 * `--sandbox-only` runs the sandbox alone; `--bff-only` requires LOYALTY_BASE_URL.
 */
async function main(argv: string[]): Promise<void> {
  const mode = argv.includes('--sandbox-only') ? 'sandbox' : argv.includes('--bff-only') ? 'bff' : 'both';
  // `.env` first (values already in the environment win), then every setting is validated once.
  const envFile = loadDotEnv();
  const config = loadConfig();
  const logger = createLogger({ level: config.log.level, pretty: config.log.pretty });
  // The effective settings, secrets masked: a block for a person at a terminal, one JSON line for a log pipeline.
  if (config.log.pretty) process.stdout.write(`\n${describeConfig(config).join('\n')}\n\n`);
  else logger.info({ mode, envFile: envFile ?? null, config: configSummary(config) }, 'effective configuration');
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
    if (config.pos.demoSetup) printDemoTokens(config.pos.terminalsFile, localUrl);
    requireTerminals(config.pos.terminalsFile);
    if (config.pos.redemptionProof === 'none') {
      logger.warn(
        { setting: 'REDEMPTION_PROOF' },
        "REDEMPTION_PROOF=none: a till can spend any customer's points by typing their id; use hash_or_otp (the default) unless every till is trusted",
      );
    }
    const bff = await startBff(config, upstream, logger).catch((err) => Promise.reject(portProblem(err, 'PORT', config.http.host, config.http.port)));
    closers.unshift(() => bff.close());
    logger.info(
      {
        url: bff.url,
        cashierApi: `${bff.url}/pos/v1`,
        docs: `${bff.url}/docs`,
        upstream: config.loyalty.baseUrl ? 'configured loyalty service' : 'bundled sandbox',
        redis: config.redis.target?.kind ?? 'memory',
        redemptionProof: config.pos.redemptionProof,
      },
      'POS BFF listening',
    );
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

/** A port already taken is named by its setting, so the fix is obvious. */
function portProblem(err: unknown, setting: string, host: string, port: number): unknown {
  const code = (err as NodeJS.ErrnoException)?.code;
  if (code === 'EADDRINUSE')
    return new ConfigError([`${setting}: port ${port} on ${host} is already in use (another copy running?); stop it or set ${setting} to a free port`]);
  if (code === 'EACCES') return new ConfigError([`${setting}: not allowed to listen on port ${port} on ${host}; use a port above 1023 or set ${setting}`]);
  return err;
}

/** A BFF nobody can call is a mistake, not a state to run in: say how to add a terminal. */
function requireTerminals(file: string): void {
  const data = readTerminalsFile(file);
  if (data && data.terminals.some((t) => !t.revokedAt)) return;
  throw new ConfigError([
    `TERMINALS_FILE: ${file} ${data ? 'has no active terminal' : 'does not exist'}; no till could call the BFF. Add a store and a terminal:\n` +
      '      npm run terminal -- add-store --id store-001 --merchant-id <id> --merchant-name <name> --branch-id <id> --branch-name <name>\n' +
      '      npm run terminal -- add --store store-001 --role cashier\n' +
      '    (in Docker: docker compose run --rm bff terminal add-store ... / terminal add ...)',
  ]);
}

/** On a fresh checkout, creates demo stores and terminals and shows their tokens once (not through the logger). */
function printDemoTokens(file: string, baseUrl: string) {
  const { created, tokens } = ensureDemoSetup(file);
  if (!created) return;
  const lines = tokens.map((t) => `  ${t.role.padEnd(8)} ${t.terminalId.padEnd(22)} store ${t.storeId}  token ${t.token}`);
  const envFile = file.replace(/\.json$/, '') + '.demo-tokens.env';
  const env = tokens.map((t) => `${t.role.toUpperCase()}${t.storeId === tokens[0].storeId ? '' : '_OTHER_STORE'}_TOKEN=${t.token}`).join('\n');
  writeFileSync(envFile, env + '\n', { mode: 0o600 });
  process.stdout.write(
    `\nCreated demo stores and terminals in ${file}. These tokens are shown once (also saved to ${envFile}):\n${lines.join('\n')}\n` +
      `Cashier API: ${baseUrl}/pos/v1   (try: curl -H "Authorization: Bearer <token>" ${baseUrl}/pos/v1/customers/demo-customer)\n` +
      `API reference: ${baseUrl}/docs\n\n`,
  );
}

main(process.argv.slice(2)).catch((err) => {
  if (err instanceof ConfigError) {
    process.stderr.write(`${err.message}\n`);
    process.exit(2);
  }
  process.stderr.write(`Start-up failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
