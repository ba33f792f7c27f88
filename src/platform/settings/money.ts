import { z } from 'zod';
import { bool, positiveInt } from './values';
import { feature, setting, type SliceOf } from './define';

export const money = feature({
  title: 'Money path: store scoping, proxies, kiosk events',
  settings: {
    returnsAtAnyBranch: setting('RETURNS_AT_ANY_BRANCH', bool.default(false), {
      description:
        'Chain policy: a sale may be refunded or voided at any store of the chain (true), or only at the store that rang ' +
        'it up (false: another store is told 404 sale_not_found).',
      readme: 'chain policy: refunds and voids of a sale at any store (default: only its own)',
    }),
    saleRecordDays: setting('SALE_RECORD_DAYS', positiveInt.max(3660).default(400), {
      description:
        'How long the BFF remembers which store made a sale or refund, in days (1..3660): refunds, voids and read-back ' +
        '(GET /payments/:id, /refunds/:id) are scoped to that store.',
      readme:
        'how long the BFF remembers which store made a sale or refund (refunds and voids stay in that store; `GET ' +
        "/payments/:id`, `/refunds/:id` read back only that store's)",
    }),
    claimLeaseSeconds: setting('CLAIM_LEASE_SECONDS', positiveInt.max(86_400).optional(), {
      description:
        'How long a claim (a redemption or coupon lock a payment or void holds, a sale or refund id being recorded, a ' +
        'sale being voided) is left to the instance that took it, in seconds (1..86400). Past it, nobody is settling it ' +
        "(that instance crashed): it is settled from the loyalty service's record. At least three times the longest upstream " +
        'call with its retries (LOYALTY_TIMEOUT_MS times LOYALTY_RETRIES + 1), as an action makes several calls; start-up refuses less.',
      default: '120, or three times the longest upstream call with its retries when that is longer',
      readme: "how long a claim is left to the instance that took it; past it, it is settled from the loyalty service's record",
    }),
    trustProxy: setting(
      'TRUST_PROXY',
      z
        .string()
        .regex(/^(false|true|[0-9]{1,2}|[0-9A-Fa-f.:/, ]+|loopback|linklocal|uniquelocal)$/, 'false, a hop count, or addresses/subnets (comma separated)')
        .default('false')
        .transform((v): boolean | number | string => (v === 'false' ? false : v === 'true' ? true : /^[0-9]+$/.test(v) ? Number(v) : v)),
      {
        description:
          'Express "trust proxy": false (the connecting address is the till\'s), a hop count, or the balancers\' ' +
          'addresses/subnets (comma separated; loopback, linklocal, uniquelocal). Set it only behind a balancer that ' +
          'overwrites X-Forwarded-For.',
        readme: 'Express `trust proxy` behind a balancer (hop count or addresses)',
      },
    ),
    kioskEvents: setting(
      'KIOSK_EVENTS',
      z
        .string()
        .regex(/^[A-Za-z0-9_.:-]+(,[A-Za-z0-9_.:-]+)*$/, 'comma-separated event names')
        .default('store_visit')
        .transform((v) => v.split(',')),
      {
        description:
          'Event names a kiosk may send (POST /events), comma separated; a store\'s "kioskEvents" in the terminals file ' +
          'replaces it for that store. Tills may send any event.',
        readme: 'events a kiosk may send, unless its store lists its own `kioskEvents`',
      },
    ),
    kioskQr: setting('KIOSK_QR', bool.optional(), {
      description:
        "Whether a kiosk may read a customer's current hash and QR payload (GET /customers/:id/hash). The hash is the " +
        "customer's proof of presence at a till, and a kiosk knows the customer only by the id it was given: turn it on " +
        'only where kiosks establish who the customer is themselves (start-up warns in production).',
      default: 'true outside production, false with NODE_ENV=production',
      readme:
        "a kiosk may read any customer's hash and QR payload (`GET /customers/:id/hash`); off (`403 kiosk_qr_off`) with " +
        "`NODE_ENV=production` unless set to `true`, which start-up warns about: the hash is the customer's proof of " +
        'presence',
    }),
  },
  read: (money, { env }) => ({ ...money, kioskQr: money.kioskQr ?? env !== 'production' }),
});

export type MoneySettings = SliceOf<typeof money>;

/** An action makes several upstream calls while it holds its claims (a lookup, the write, a check): the lease outlasts this many. */
export const CLAIM_LEASE_CALLS = 3;

/**
 * The lease's promise, checked at start-up (src/platform/config.ts, which
 * sees the loyalty settings too): a claim whose lease is over has no write of
 * its taker still in flight, so the lease outlasts several calls with their retries.
 */
export function claimLeaseProblem(claimLeaseSeconds: number | undefined, loyalty: { timeoutMs: number; retries: number }): string | undefined {
  const needMs = leaseNeedMs(loyalty);
  if (claimLeaseSeconds === undefined || claimLeaseSeconds * 1000 >= needMs) return undefined;
  return (
    `CLAIM_LEASE_SECONDS: ${claimLeaseSeconds} s is too short for LOYALTY_TIMEOUT_MS=${loyalty.timeoutMs} with LOYALTY_RETRIES=${loyalty.retries}: ` +
    `a claim's lease must outlast ${CLAIM_LEASE_CALLS} upstream calls with their retries (at least ${Math.ceil(needMs / 1000)} s), ` +
    'or a claim still being written is settled as if its instance had crashed'
  );
}

const leaseNeedMs = (loyalty: { timeoutMs: number; retries: number }) => CLAIM_LEASE_CALLS * loyalty.timeoutMs * (loyalty.retries + 1);

/** The lease in force: CLAIM_LEASE_SECONDS, or by default 120 s, longer where the upstream timeouts ask for more. */
export function claimLeaseSecondsOf(money: { claimLeaseSeconds?: number }, loyalty: { timeoutMs: number; retries: number }): number {
  return money.claimLeaseSeconds ?? Math.max(120, Math.ceil(leaseNeedMs(loyalty) / 1000));
}
