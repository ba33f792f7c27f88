import { nonNegativeInt } from './values';
import { feature, setting, type SliceOf } from './define';

export const security = feature({
  title: 'Abuse limits (shared through Redis when REDIS_URL is set)',
  settings: {
    terminalRateLimitPerMinute: setting('TERMINAL_RATE_LIMIT_PER_MINUTE', nonNegativeInt.max(1_000_000_000).default(600), {
      description: 'Requests per minute one terminal may make to /pos/v1; more get 429 rate_limited with Retry-After. 0 = no limit.',
    }),
    authFailureLimitPerMinute: setting('AUTH_FAILURE_LIMIT_PER_MINUTE', nonNegativeInt.max(1_000_000_000).default(20), {
      description:
        'Failed authentications per minute with one credential (a digest of the token or client certificate presented), ' +
        'or from one source address for requests that present none; after that that credential (or address) gets 429 ' +
        'too_many_auth_failures (before it is even checked) until the minute is over, while other tills behind the same ' +
        'address carry on. 0 = no limit.',
    }),
    maxOpenRedemptionsPerTerminal: setting('MAX_OPEN_REDEMPTIONS_PER_TERMINAL', nonNegativeInt.max(1_000_000).default(10), {
      description:
        'Redemptions one terminal may have open (otp_required or held) at once; one more is refused with 409 ' + 'too_many_open_redemptions. 0 = no cap.',
    }),
  },
});

export type SecuritySettings = SliceOf<typeof security>;
