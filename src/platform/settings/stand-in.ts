import { z } from 'zod';
import { nonNegativeInt, positiveInt } from './values';
import { feature, setting, type SliceOf } from './define';

/**
 * Stand-in redemption: points spent at the till while the loyalty
 * service is certainly out of reach, under floor limits, settled once later.
 * A store of the terminals file may override each (`standIn`), read through
 * storePolicy (src/pos/terminals/policy.ts).
 */
export const standIn = feature({
  title: 'Stand-in redemption while the loyalty service is out',
  notes: [
    'A bounded risk a retailer takes knowingly: off by default. A store of the terminals file may override each value (`standIn`).',
    'See docs/store-manager.md#stand-in-redemption.',
  ],
  settings: {
    mode: setting('STAND_IN', z.enum(['off', 'on']).default('off'), {
      description:
        'on = while the loyalty service is certainly out of reach (its circuit open, the connection refused, the fleet budget ' +
        'refusing for longer than STAND_IN_AFTER_SECONDS) a customer seen at the till within STAND_IN_SEEN_MINUTES may spend ' +
        'points up to their last known balance and the floor limits below; the points are redeemed (and the sale recorded) when the service is back.',
      readme: 'stand-in redemption while the loyalty service is out, under floor limits (off by default)',
    }),
    afterSeconds: setting('STAND_IN_AFTER_SECONDS', nonNegativeInt.max(3600).default(30), {
      description: 'How long the fleet budget must have been refusing calls (seconds) before a refused hold may be stood in for.',
    }),
    seenMinutes: setting('STAND_IN_SEEN_MINUTES', positiveInt.max(24 * 60).default(15), {
      description: "How recent a customer's lookup at the till must be (minutes) for their last known balance to stand in.",
    }),
    maxPointsPerCustomer: setting('STAND_IN_MAX_POINTS_PER_CUSTOMER', nonNegativeInt.default(300), {
      description: 'Floor limit: points one customer may spend in stand-in per store day, counted fleet-wide (0 = none without approval).',
    }),
    maxPointsPerStore: setting('STAND_IN_MAX_POINTS_PER_STORE', nonNegativeInt.default(5000), {
      description: 'Floor limit: points one store may let customers spend in stand-in per hour (0 = none without approval).',
    }),
    approvalMinutes: setting('STAND_IN_APPROVAL_MINUTES', nonNegativeInt.max(60).default(5), {
      description:
        'How long a stand-in over the floor limits waits for a manager terminal of the store to approve it (minutes): once, up to the last known balance. 0 = no approval: over the limits is refused.',
    }),
  },
});

export type StandInSettings = SliceOf<typeof standIn>;
