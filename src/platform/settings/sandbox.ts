import { z } from 'zod';
import { port, positiveInt } from './values';
import { feature, setting, type SliceOf } from './define';

export const sandbox = feature({
  title: 'Sandbox (the bundled loyalty service, used when LOYALTY_BASE_URL is unset)',
  settings: {
    host: setting('SANDBOX_HOST', z.string().min(1).default('127.0.0.1'), { description: 'Interface the bundled sandbox listens on.' }),
    port: setting('SANDBOX_PORT', port.default(8081), { description: 'Port of the bundled sandbox.' }),
    accountsFile: setting('SANDBOX_ACCOUNTS_FILE', z.string().min(1).default('config/sandbox-accounts.json'), {
      description: 'Sandbox accounts (keys, OTP, High Security Mode, rates, tiers, coupons).',
    }),
    bodyLimitBytes: setting('SANDBOX_BODY_LIMIT_BYTES', positiveInt.max(50 * 1024 * 1024).default(1024 * 1024), {
      description: 'Largest request body the sandbox accepts, in bytes.',
      default: '1048576 (1 MiB)',
    }),
  },
});

export type SandboxSettings = SliceOf<typeof sandbox>;
