import { z } from 'zod';
import { bool, nonNegativeInt, positiveInt } from './values';
import { feature, setting, type SliceOf } from './define';

export const pos = feature({
  title: 'Cashier API behaviour',
  settings: {
    terminalsFile: setting('TERMINALS_FILE', z.string().min(1).default('config/terminals.json'), {
      description: 'Stores and terminals (token hashes).',
      readme: 'stores and terminals',
    }),
    terminalsShared: setting('TERMINALS_SHARED', z.enum(['file', 'redis']).default('file'), {
      description:
        'How the instances share the terminals: `file`, each reads TERMINALS_FILE (one instance, or a file every host mounts); ' +
        '`redis`, the terminal CLI writes TERMINALS_FILE (still the copy to back up) and publishes it to Redis, and every ' +
        'instance takes a newer generation from there within a second (REDIS_URL or another Redis target needed). ' +
        'See docs/operator/terminals.md.',
      readme: 'how instances share the terminals: each reads the file, or the CLI publishes it to Redis',
    }),
    terminalCommand: setting('TERMINAL_COMMAND', z.string().min(1).max(200).optional(), {
      description:
        'How an operator runs the terminal CLI where this program runs, as the hints it prints show it (adding a ' +
        'terminal, revoking one). Unset: `npm run terminal --` from a source checkout, `node dist/pos/terminals/cli.js` ' +
        'from the build (relative to the working directory); the image sets `terminal`, compose.yaml ' +
        '`docker compose run --rm bff terminal`.',
      default: 'follows how the program was started',
    }),
    holdPeriodMinutes: setting('HOLD_PERIOD_MINUTES', positiveInt.max(15 * 24 * 60).default(10), {
      description:
        "The account's hold period in minutes (1..21600), used to estimate a hold's end until a hold lookup has shown the " +
        'real period (then the period learned is used).',
      readme:
        "the account's hold period: a redemption's expiry is estimated from it until a hold lookup has shown the real one " +
        '(then the period learned is used)',
    }),
    holdSafetyMarginSeconds: setting('HOLD_SAFETY_MARGIN_SECONDS', nonNegativeInt.max(3600).default(30), {
      description: 'A payment refuses a redemption with less than this left before its hold expires, in seconds.',
    }),
    tillWaitSeconds: setting('TILL_WAIT_SECONDS', positiveInt.max(120).optional(), {
      description:
        'How long a till waits for an answer, in seconds (1..120), when it sends no `Prefer: wait`: within it the BFF always ' +
        'answers (202 with a read-back link when a write is still under way, 503 till_deadline_reached when nothing was sent). ' +
        'A store of the terminals file may set its own (`tillWaitSeconds`). Unset: no deadline, the till waits as long as the BFF takes.',
      default: 'unset (no deadline)',
      readme: 'how long a till waits when it sends no `Prefer: wait`; unset: as long as it takes',
    }),
    sweeperIntervalMs: setting('SWEEPER_INTERVAL_MS', positiveInt.max(600_000).default(1000), {
      description: 'How often the hold sweeper looks for expired holds, in milliseconds.',
    }),
    refundRequiresManager: setting('REFUND_REQUIRES_MANAGER', bool.default(true), {
      description: 'true = only manager terminals may refund; false = cashiers may too.',
    }),
    demoSetup: setting('DEMO_SETUP', bool.optional(), {
      description:
        'Create demo stores and terminals at start-up when the terminals file has none. Only with the bundled sandbox: ' +
        'true together with LOYALTY_BASE_URL or NODE_ENV=production is refused.',
      default: 'true with the bundled sandbox outside production, else false',
      readme: 'demo stores and terminals on a fresh start; refused with `LOYALTY_BASE_URL` or `NODE_ENV=production`',
    }),
    couponLockMinutes: setting('COUPON_LOCK_MINUTES', positiveInt.max(15 * 24 * 60).default(10), {
      description: 'Minutes a coupon lock lasts at the loyalty service; the BFF releases it HOLD_SAFETY_MARGIN_SECONDS before.',
      readme: 'how long a coupon lock lasts at the loyalty service',
    }),
    redemptionOptionsTtlSeconds: setting('REDEMPTION_OPTIONS_TTL_SECONDS', positiveInt.max(86_400).default(300), {
      description: 'Seconds the redemption rules are served from cache before a background refresh.',
      readme: "redemption rules served from each instance's cache this long, then refreshed in the background",
    }),
    redemptionProof: setting('REDEMPTION_PROOF', z.enum(['hash_or_otp', 'hash', 'otp', 'none']).default('hash_or_otp'), {
      description: [
        'What shows the customer is at the till before their points are held:',
        "  hash_or_otp  the current hash from the customer's QR code, or an OTP when the loyalty account checks OTPs",
        '  hash         the QR code always (and an OTP too if the account checks OTPs)',
        '  otp          an OTP always (the loyalty account must check OTPs)',
        '  none         nothing: a typed customer id is enough (start-up warns).',
      ].join('\n'),
      readme:
        "what shows the customer is at the till: `hash_or_otp` (the QR code's current hash, or an OTP when the account " +
        'checks OTPs), `hash`, `otp` (the account must check OTPs), `none` (a typed id is enough; start-up warns)',
    }),
    otpCodeMinutes: setting('OTP_CODE_MINUTES', positiveInt.max(60).default(5), {
      description:
        "How long a customer's OTP lives at the loyalty service, in minutes (1..60). While a customer's code is out, no " +
        'other redemption may have one sent (409 otp_pending_for_another_redemption), so a code always confirms the ' +
        "redemption it was sent for. Set it to the account's OTP lifetime.",
      readme:
        "how long a customer's OTP lives at the loyalty service; while it is out no other redemption may have a code sent " +
        'to that customer (`409 otp_pending_for_another_redemption`)',
    }),
    otpMode: setting('OTP_MODE', z.enum(['auto', 'on', 'off']).default('auto'), {
      description: [
        "Whether the loyalty account checks OTPs (it is the account's setting; the BFF cannot read it from a real service):",
        '  auto  learnt from the answers to holds, fleet-wide in Redis, and forgotten OTP_MODE_RECHECK_MINUTES after it',
        '        was learnt, so a change of the account is noticed; reset it with the otp-mode CLI (show|reset)',
        '  on    the account checks OTPs: believed, never learnt (a typed id asks for a code at once)',
        '  off   the account does not check OTPs: believed, never learnt (a typed id is refused unless REDEMPTION_PROOF=none).',
        "With the bundled sandbox and auto the account's setting is read live.",
      ].join('\n'),
      readme:
        'whether the loyalty account checks OTPs: `auto` (learnt from hold answers, forgotten after ' +
        '`OTP_MODE_RECHECK_MINUTES`), `on`, `off` (believed, never learnt); see "OTP mode"',
    }),
    otpModeRecheckMinutes: setting('OTP_MODE_RECHECK_MINUTES', positiveInt.max(7 * 24 * 60).default(60), {
      description:
        'With OTP_MODE=auto: minutes a learnt OTP mode is believed (1..10080); after that it is unknown again and the next ' +
        'redemption finds out from its hold, sent without a code.',
      readme: 'with `OTP_MODE=auto`, how long a learnt OTP mode is believed before the next hold checks it again',
    }),
  },
  // Demo terminals only make sense against the bundled sandbox, and never in production.
  read: (pos, { env, bundledSandbox }) => ({ ...pos, demoSetup: pos.demoSetup ?? (bundledSandbox && env !== 'production') }),
});

export type CashierApiSettings = SliceOf<typeof pos>;
