import { writeFileSync } from 'node:fs';
import { configSummary, ConfigError, describeConfig, loadConfig } from './platform/config';
import { createLogger } from './platform/logger';
import { startBff, UpstreamTarget } from './pos/server';
import { ensureDemoSetup } from './pos/terminals';
import { AccountSettings, loadSandboxAccounts, startSandbox, StartedSandbox } from './sandbox';

/**
 * Entry point. By default: the BFF with the bundled sandbox as its upstream.
 * `--sandbox-only` runs the sandbox alone; `--bff-only` requires LOYALTY_BASE_URL.
 */
async function main(argv: string[]): Promise<void> {
  const mode = argv.includes('--sandbox-only') ? 'sandbox' : argv.includes('--bff-only') ? 'bff' : 'both';
  const config = loadConfig();
  const logger = createLogger({ level: config.log.level, pretty: config.log.pretty });
  // The effective settings, secrets masked: a block for a person at a terminal, one JSON line for a log pipeline.
  if (config.log.pretty) process.stdout.write(`\n${describeConfig(config).join('\n')}\n\n`);
  else logger.info({ mode, config: configSummary(config) }, 'effective configuration');
  const closers: (() => Promise<void>)[] = [];

  let sandbox: StartedSandbox | undefined;
  let accounts: AccountSettings[] = [];
  if (mode === 'sandbox' || (mode === 'both' && !config.loyalty.baseUrl)) {
    accounts = loadSandboxAccounts(config.sandbox.accountsFile);
    sandbox = await startSandbox({ accounts, logger: logger.child({ program: 'sandbox' }), bodyLimitBytes: config.sandbox.bodyLimitBytes, host: config.sandbox.host, port: config.sandbox.port });
    closers.push(() => sandbox!.close());
    logger.info({ url: sandbox.url, accounts: accounts.length }, 'loyalty sandbox listening');
  }

  if (mode !== 'sandbox') {
    let upstream: UpstreamTarget;
    if (config.loyalty.baseUrl) {
      upstream = { baseUrl: config.loyalty.baseUrl, apiKey: config.loyalty.apiKey!, secretKey: config.loyalty.secretKey! };
    } else if (sandbox) {
      // The BFF uses the first sandbox account unless keys are configured.
      const account = accounts[0];
      upstream = { baseUrl: sandbox.url, apiKey: config.loyalty.apiKey ?? account.apiKey, secretKey: config.loyalty.secretKey ?? account.secretKey };
    } else {
      throw new ConfigError(['LOYALTY_BASE_URL: required with --bff-only']);
    }
    if (config.pos.demoSetup) printDemoTokens(config.pos.terminalsFile, `${config.http.tls ? 'https' : 'http'}://localhost:${config.http.port}`);
    const bff = await startBff(config, upstream, logger);
    closers.unshift(() => bff.close());
    logger.info({ url: bff.url, upstream: config.loyalty.baseUrl ? 'configured loyalty service' : 'bundled sandbox', redis: config.redis.url ? 'redis' : 'memory' }, 'POS BFF listening');
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
      `Cashier API: ${baseUrl}/pos/v1   (try: curl -H "Authorization: Bearer <token>" ${baseUrl}/pos/v1/customers/demo-customer)\n\n`,
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
