/**
 * Shows and resets what the fleet believes about the loyalty account's OTPs
 * (OTP_MODE): `npm run otp-mode -- show|reset` from a checkout, `node
 * dist/pos/otp/cli.js show|reset` from the build. It reads the BFF's Redis
 * with the same REDIS_* settings and key prefix. A reset forgets what was
 * learnt, so the next hold (sent without a code) finds out again; running
 * instances need no restart, they read the shared value on every start.
 * Exit codes: 0 done, 1 refused (no Redis, Redis unreachable, bad settings), 2 bad arguments.
 */
import { parseArgs } from 'node:util';
import pino from 'pino';
import { ConfigError, loadConfig, loadDotEnv, type Config } from '../../platform/config';
import { connectRedis, waitForRedis } from '../../platform/redis';
import { createOtpMode } from './mode';
import { UpstreamOtp, type OtpBelief } from './upstream-otp';

const USAGE = `usage: npm run otp-mode -- <command>

commands:
  show [--json]   OTP_MODE, what the fleet learnt (auto) and until when it is believed
  reset           forget what was learnt: the next redemption's hold, sent without a code, shows it again

(reads the BFF's Redis: REDIS_URL or a cluster or sentinels, and REDIS_KEY_PREFIX, as the BFF has them)`;

class UsageError extends Error {}
class Refused extends Error {}

const words = (required: boolean) => (required ? 'checked (the account checks OTPs)' : 'not checked (the account does not check OTPs)');
const when = (ms: number) => new Date(ms).toISOString();

/** What the fleet believes, in a sentence per line. */
export function describeBelief(b: OtpBelief, bundledSandbox: boolean): string[] {
  const lines = [`OTP_MODE=${b.setting}`];
  if (b.source === 'setting') lines.push(`believed: ${words(b.required as boolean)}, from the setting; nothing is learnt`);
  else if (bundledSandbox) lines.push("with the bundled sandbox the BFF reads the account's setting live; what is learnt is not used");
  if (!b.learnt) lines.push('learnt: nothing (the next hold, sent without a code, shows it)');
  else if (b.learnt.expired)
    lines.push(
      `learnt: ${words(b.learnt.required)} at ${when(b.learnt.at)}; expired at ${when(b.learnt.expiresAt)} (the next hold, sent without a code, checks again)`,
    );
  else lines.push(`learnt: ${words(b.learnt.required)} at ${when(b.learnt.at)}; believed until ${when(b.learnt.expiresAt)}`);
  return lines;
}

async function run(argv: string[]): Promise<void> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: { json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } }, allowPositionals: true, strict: true });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const [command, ...rest] = parsed.positionals;
  if (parsed.values.help) return void process.stdout.write(`${USAGE}\n`);
  if (command !== 'show' && command !== 'reset') throw new UsageError(command ? `unknown command "${command}"` : 'no command given');
  if (rest.length) throw new UsageError(`unexpected argument "${rest[0]}"`);
  if (command === 'reset' && parsed.values.json) throw new UsageError('reset does not take --json');

  loadDotEnv();
  const config: Config = loadConfig();
  if (!config.redis.target) throw new Refused('no Redis configured: without REDIS_URL each BFF keeps what it learnt in its process; restart it to forget');
  const logger = pino({ level: 'warn' }, process.stderr);
  const redis = connectRedis(config.redis.target, logger);
  try {
    await waitForRedis(redis, 10_000).catch((err: unknown) => Promise.reject(new Refused(`Redis did not answer: ${(err as Error).message}`)));
    const otp = new UpstreamOtp({
      store: createOtpMode({ redis, prefix: config.redis.keyPrefix }),
      clock: Date.now,
      logger,
      mode: config.pos.otpMode,
      recheckMs: config.pos.otpModeRecheckMinutes * 60_000,
    });
    const bundledSandbox = !config.loyalty.baseUrl;
    if (command === 'show') {
      const belief = await otp.belief();
      process.stdout.write(parsed.values.json ? `${JSON.stringify(belief)}\n` : `${describeBelief(belief, bundledSandbox).join('\n')}\n`);
      return;
    }
    const before = await otp.belief();
    const forgot = await otp.forget();
    const was = before.learnt ? `was ${before.learnt.required ? 'checked' : 'not checked'}, learnt at ${when(before.learnt.at)}` : '';
    process.stdout.write(forgot ? `Forgot the learnt OTP mode (${was}); the next hold, sent without a code, shows it again.\n` : 'Nothing learnt to forget.\n');
    if (config.pos.otpMode !== 'auto') process.stdout.write(`OTP_MODE=${config.pos.otpMode} is believed regardless; set OTP_MODE=auto to learn.\n`);
  } finally {
    await redis.quit().catch(() => redis.disconnect());
  }
}

export function runOtpModeCli(argv: string[]): Promise<void> {
  return run(argv).catch((err: unknown) => {
    if (err instanceof UsageError) {
      process.stderr.write(`error: ${err.message}\n\n${USAGE}\n`);
      process.exitCode = 2;
    } else if (err instanceof Refused || err instanceof ConfigError) {
      process.stderr.write(`error: ${err.message}\n`);
      process.exitCode = 1;
    } else {
      throw err;
    }
  });
}

if (require.main === module) void runOtpModeCli(process.argv.slice(2));
