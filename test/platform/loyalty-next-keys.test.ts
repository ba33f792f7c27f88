import { ConfigError, loadConfig } from '../../src/platform/config';

/** The next key pair's settings (rotation): what start-up refuses, and what it reads. */
const KEYS = { LOYALTY_BASE_URL: 'https://loyalty.example.com', LOYALTY_API_KEY: 'live_key', LOYALTY_SECRET_KEY: 'live_secret_4e1' };

function problems(env: Record<string, string>): string {
  try {
    loadConfig({ ...KEYS, ...env });
  } catch (err) {
    if (err instanceof ConfigError) return err.message;
    throw err;
  }
  return '';
}

it('a next API key needs a next secret key', () => {
  expect(problems({ LOYALTY_API_KEY_NEXT: 'live_key_2' })).toMatch(/LOYALTY_API_KEY_NEXT: needs LOYALTY_SECRET_KEY_NEXT/);
  expect(problems({ LOYALTY_API_KEY_NEXT: 'live_key_2', LOYALTY_SECRET_KEY_NEXT: 'live_secret_5f2' })).toBe('');
});

it('a next key pair equal to the current one is refused; the same secret with another API key is a pair of its own', () => {
  expect(problems({ LOYALTY_SECRET_KEY_NEXT: KEYS.LOYALTY_SECRET_KEY })).toMatch(/LOYALTY_SECRET_KEY_NEXT: the same key pair/);
  expect(problems({ LOYALTY_SECRET_KEY_NEXT: KEYS.LOYALTY_SECRET_KEY, LOYALTY_API_KEY_NEXT: 'live_key_2' })).toBe('');
});

it('reads the next keys and the check interval (default 60 s)', () => {
  expect(loadConfig({ ...KEYS }).loyalty).toMatchObject({ keyCheckSeconds: 60 });
  expect(loadConfig({ ...KEYS, LOYALTY_SECRET_KEY_NEXT: 'live_secret_5f2', LOYALTY_KEY_CHECK_SECONDS: '30' }).loyalty).toMatchObject({
    secretKeyNext: 'live_secret_5f2',
    keyCheckSeconds: 30,
  });
  expect(problems({ LOYALTY_KEY_CHECK_SECONDS: '0' })).toMatch(/LOYALTY_KEY_CHECK_SECONDS/);
});
