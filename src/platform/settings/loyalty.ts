import { z } from 'zod';
import { bool, nonNegativeInt, positiveInt } from './values';
import { feature, setting, type SliceOf } from './define';

/** Loopback: the bundled sandbox and the tests; a plain-HTTP call there never leaves the machine. */
function isLoopback(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127(\.[0-9]{1,3}){3}$/.test(hostname);
}

export const loyalty = feature({
  title: 'Loyalty service (upstream)',
  notes: [
    "Whether the account checks OTPs is OTP_MODE (Cashier API behaviour): by default learnt from the holds' answers " +
      "for OTP_MODE_RECHECK_MINUTES; with the bundled sandbox the account's own setting is read.",
  ],
  settings: {
    baseUrl: setting('LOYALTY_BASE_URL', z.url({ protocol: /^https?$/ }).optional(), {
      description:
        'Unset: the BFF starts the bundled sandbox and uses it. Set: use this service (the real one, e.g. ' +
        'https://api.example-loyalty.com) and never start the sandbox.',
      default: 'unset (the bundled sandbox)',
      readme: 'unset: start the bundled sandbox and use it; set: use that service and never start the sandbox',
    }),
    apiKey: setting('LOYALTY_API_KEY', z.string().min(1).optional(), {
      description: "The account's API key. Required when LOYALTY_BASE_URL is set; never give it to a till.",
      default: "the sandbox demo account's API key",
      readme: "the account's API key; required with `LOYALTY_BASE_URL`",
    }),
    secretKey: setting('LOYALTY_SECRET_KEY', z.string().min(1).optional(), {
      description: "The account's secret key. Required when LOYALTY_BASE_URL is set; never give it to a till.",
      default: "the sandbox demo account's secret key",
      readme: "the account's secret key; required with `LOYALTY_BASE_URL`",
    }),
    apiKeyNext: setting('LOYALTY_API_KEY_NEXT', z.string().min(1).optional(), {
      description:
        'The API key to rotate to, if it changes too (see "Rotating the loyalty keys" in docs/operator/keys.md). Unset: the next key pair uses LOYALTY_API_KEY.',
      readme: 'the API key to rotate to, if it changes; unset: `LOYALTY_API_KEY`',
    }),
    secretKeyNext: setting('LOYALTY_SECRET_KEY_NEXT', z.string().min(1).optional(), {
      description:
        'The secret key to rotate to: when the loyalty service refuses the key in use, a call is sent once more with this one, ' +
        'and if it is accepted the fleet uses it from then on (see "Rotating the loyalty keys" in docs/operator/keys.md).',
      readme: 'the secret key to rotate to, tried when the key in use is refused',
    }),
    keyCheckSeconds: setting('LOYALTY_KEY_CHECK_SECONDS', positiveInt.max(3600).default(60), {
      description:
        'How often the fleet checks that the loyalty service accepts its keys (one authenticated read per configured key pair, ' +
        'by one instance, at background priority; the result is shared through Redis), in seconds.',
    }),
    salesRecordedAs: setting('SALES_RECORDED_AS', z.enum(['payment', 'order']).default('payment'), {
      description:
        "How a sale is recorded at the loyalty service: payment = POST /payments (the specification's way; it shares the " +
        "Transactions POST limit with the holds), order = Track Order, POST /orders (the published POS guide's way; the Orders " +
        "limit, shared with earn previews and order reads, so a chain records more sales at once on a peak day). The account's earning rules must give orders " +
        'the points they give payments (see "Payments or orders" in docs/operator/scaling.md). A sale keeps the way it was ' +
        'first sent: its retries, refunds, voids and read-back work after a change.',
      readme: '`payment` (`POST /payments`) or `order` (Track Order, `POST /orders`, in the Orders rate limit)',
    }),
    timeoutMs: setting('LOYALTY_TIMEOUT_MS', positiveInt.max(120_000).default(5000), {
      description: 'Timeout of one upstream call, in milliseconds.',
    }),
    retries: setting('LOYALTY_RETRIES', nonNegativeInt.max(10).default(2), {
      description: 'Retries of calls that are safe to retry (reads, payments, refunds).',
    }),
    allowHttp: setting('LOYALTY_ALLOW_HTTP', bool.default(false), {
      description:
        'Every call carries the secret key, so LOYALTY_BASE_URL must be https://, except to a loopback host (127.0.0.1, ' +
        '::1, localhost). true = also allow plain http:// to another host (e.g. a sandbox container on a private ' +
        'network); refused with NODE_ENV=production.',
      readme:
        '`LOYALTY_BASE_URL` must be `https://` (every call carries the secret key) unless its host is loopback ' +
        '(`127.0.0.1`, `::1`, `localhost`); `true` allows plain `http://` to another host, for a trial against a sandbox ' +
        'container; refused with `NODE_ENV=production`',
    }),
  },
  read: (loyalty, _deployment, problems) => {
    if (loyalty.baseUrl && !(loyalty.apiKey && loyalty.secretKey)) {
      problems.push('LOYALTY_API_KEY and LOYALTY_SECRET_KEY: required when LOYALTY_BASE_URL is set');
    }
    if (loyalty.apiKeyNext && !loyalty.secretKeyNext) {
      problems.push('LOYALTY_API_KEY_NEXT: needs LOYALTY_SECRET_KEY_NEXT (the next key pair is both keys)');
    }
    if (loyalty.secretKeyNext && loyalty.secretKeyNext === loyalty.secretKey && (loyalty.apiKeyNext ?? loyalty.apiKey) === loyalty.apiKey) {
      problems.push('LOYALTY_SECRET_KEY_NEXT: the same key pair as LOYALTY_API_KEY/LOYALTY_SECRET_KEY; set the key to rotate to, or unset it');
    }
    // Every call carries the secret key. LOYALTY_ALLOW_HTTP is for trials; production refuses it (src/platform/config.ts).
    if (loyalty.baseUrl && !loyalty.allowHttp) {
      const url = new URL(loyalty.baseUrl);
      if (url.protocol !== 'https:' && !isLoopback(url.hostname)) {
        problems.push(
          'LOYALTY_BASE_URL: must be https:// (every call carries the secret key); plain http:// only to a loopback host (127.0.0.1, ::1, localhost), or outside production with LOYALTY_ALLOW_HTTP=true',
        );
      }
    }
    return loyalty;
  },
});

export type LoyaltySettings = SliceOf<typeof loyalty>;
