import { execFile } from 'node:child_process';
import path from 'node:path';
import type { Redis } from 'ioredis';
import { silentLogger } from '../../../src/platform/logger';
import { RedisOtpMode, UpstreamOtp, type OtpModeSetting } from '../../../src/pos/otp';
import { deleteKeys, redisUrl, testRedis, uniquePrefix } from '../../support/redis';

const HOUR = 60 * 60_000;
const T0 = 1_800_000_000_000;

let redis: Redis;
let prefix: string;
let now: number;
const otpOf = (mode: OtpModeSetting = 'auto') =>
  new UpstreamOtp({ store: new RedisOtpMode(redis, prefix), clock: () => now, logger: silentLogger, mode, recheckMs: HOUR });

beforeEach(async () => {
  redis = await testRedis();
  prefix = uniquePrefix('otpmode');
  now = T0;
});
afterEach(async () => {
  await deleteKeys(redis, prefix);
  await redis.quit();
});

describe('OTP_MODE=auto: a learnt mode is believed for OTP_MODE_RECHECK_MINUTES, then unknown (real Redis)', () => {
  it.each([true, false])('learnt %s: believed until the expiry, unknown from it on', async (required) => {
    const otp = otpOf();
    await otp.learn(required);
    now = T0 + HOUR - 1;
    expect(await otp.required()).toBe(required);
    now = T0 + HOUR;
    expect(await otp.required()).toBeUndefined();
    expect(await otp.belief()).toMatchObject({ source: 'learnt', required: undefined, learnt: { required, at: T0, expiresAt: T0 + HOUR, expired: true } });
  });

  it('a value written by the previous release ({required, at}, no expiry) is read as learnt at `at`, so it expires too', async () => {
    await redis.set(`${prefix}otp-mode`, JSON.stringify({ required: false, at: T0 - HOUR - 1 }));
    expect(await otpOf().required()).toBeUndefined();
    await redis.set(`${prefix}otp-mode`, JSON.stringify({ required: false, at: T0 - 1000 }));
    expect(await otpOf().required()).toBe(false);
  });

  it('a fresh answer after the expiry is learnt again (it is newer than the expired one)', async () => {
    const otp = otpOf();
    await otp.learn(false);
    now = T0 + 2 * HOUR;
    await otp.learn(true);
    expect(await otp.belief()).toMatchObject({ required: true, learnt: { at: T0 + 2 * HOUR, expired: false } });
  });

  it('a value the BFF cannot read is unknown (the next hold finds out), and the next answer replaces it', async () => {
    await redis.set(`${prefix}otp-mode`, 'not json');
    const otp = otpOf();
    expect(await otp.required()).toBeUndefined();
    await otp.learn(true);
    expect(await otp.required()).toBe(true);
  });
});

describe('OTP_MODE=on|off: believed, never learnt (real Redis)', () => {
  it.each([
    ['on', true],
    ['off', false],
  ] as const)('OTP_MODE=%s answers %s whatever was learnt, and learns nothing', async (mode, believed) => {
    await otpOf('auto').learn(!believed);
    const otp = otpOf(mode);
    expect(otp.live).toBe(true);
    expect(await otp.required()).toBe(believed);
    now = T0 + 1;
    await otp.learn(!believed);
    now = T0 + 10 * HOUR;
    expect(await otp.required()).toBe(believed);
    // Nothing was written by the instance that believes the setting: the value is the auto instance's.
    expect(JSON.parse((await redis.get(`${prefix}otp-mode`)) as string)).toEqual({ required: !believed, at: T0 });
  });
});

const ROOT = path.resolve(__dirname, '../../..');
const TSX = path.join(ROOT, 'node_modules/.bin/tsx');

function cli(args: string[], env: NodeJS.ProcessEnv, program = 'scripts/otp-mode.ts'): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(TSX, [program, ...args], { cwd: ROOT, env: { ...process.env, ...env } }, (err, stdout, stderr) => {
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

describe('npm run otp-mode -- show|reset (a child process, real Redis)', () => {
  const envOf = (extra: NodeJS.ProcessEnv = {}) => ({
    NODE_ENV: 'test',
    REDIS_URL: redisUrl(),
    REDIS_KEY_PREFIX: prefix,
    LOYALTY_BASE_URL: 'http://127.0.0.1:9',
    LOYALTY_API_KEY: 'k',
    LOYALTY_SECRET_KEY: 's',
    OTP_MODE_RECHECK_MINUTES: '60',
    ...extra,
  });

  it('shows the setting, what was learnt and until when; reset deletes it; show then says nothing is learnt', async () => {
    const at = Date.now();
    await redis.set(`${prefix}otp-mode`, JSON.stringify({ required: false, at }));
    const shown = await cli(['show', '--json'], envOf());
    expect(shown.code).toBe(0);
    expect(JSON.parse(shown.stdout)).toEqual({
      setting: 'auto',
      source: 'learnt',
      required: false,
      learnt: { required: false, at, expiresAt: at + HOUR, expired: false },
    });
    const text = await cli(['show'], envOf());
    expect(text.stdout).toContain('OTP_MODE=auto');
    expect(text.stdout).toContain(
      `learnt: not checked (the account does not check OTPs) at ${new Date(at).toISOString()}; believed until ${new Date(at + HOUR).toISOString()}`,
    );

    const reset = await cli(['reset'], envOf());
    expect(reset).toMatchObject({ code: 0 });
    expect(reset.stdout).toContain('Forgot the learnt OTP mode (was not checked');
    expect(await redis.get(`${prefix}otp-mode`)).toBeNull();
    expect((await cli(['show'], envOf())).stdout).toContain('learnt: nothing');
    expect((await cli(['reset'], envOf())).stdout).toContain('Nothing learnt to forget.');
    // The module the build carries (dist/pos/otp/cli.js) runs on its own too.
    expect((await cli(['show'], envOf(), 'src/pos/otp/cli.ts')).stdout).toContain('learnt: nothing');
  });

  it('shows OTP_MODE=on as believed; an expired learnt value as expired', async () => {
    await redis.set(`${prefix}otp-mode`, JSON.stringify({ required: true, at: Date.now() - 2 * HOUR }));
    const shown = await cli(['show'], envOf({ OTP_MODE: 'on' }));
    expect(shown.stdout).toContain('believed: checked (the account checks OTPs), from the setting; nothing is learnt');
    expect(shown.stdout).toMatch(/learnt: checked .* expired at /);
  });

  it('refuses a bad command (2) and a missing Redis (1)', async () => {
    expect((await cli(['wipe'], envOf())).code).toBe(2);
    const noRedis = await cli(['show'], { ...envOf(), REDIS_URL: '' });
    expect(noRedis.code).toBe(1);
    expect(noRedis.stderr).toContain('no Redis configured');
  });
});
