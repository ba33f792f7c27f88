import { z } from 'zod';
import { nonNegativeInt, positiveInt } from './values';
import { feature, setting, type SliceOf } from './define';

export const abuse = feature({
  title: 'Redemption cap and abuse signals (read from the audit trail)',
  notes: [
    'The cap is counted fleet-wide in Redis (process memory without it); a store of the terminals file may set its own cap (redemptionCapPointsPerCustomerDay).',
    "The signals are computed from the audit trail: GET /pos/v1/audit/signals, the day's reconciliation, pos_abuse_signals_total (docs/store-manager.md).",
  ],
  settings: {
    redemptionCapPointsPerCustomerDay: setting('REDEMPTION_CAP_POINTS_PER_CUSTOMER_DAY', nonNegativeInt.default(0), {
      description:
        'Most points one customer may redeem in a store day (STORE_TIME_ZONE), counted across every store and instance; a redemption ' +
        'start that would go over it is refused (409 redemption_cap_reached) before anything is sent upstream. Points count when they are ' +
        'held and are given back when the redemption is voided or its hold expires unused. 0: no cap. A store may set its own in the terminals file.',
      default: '0 (no cap)',
      readme: 'most points one customer may redeem a day, across the stores (0: no cap); a store may set its own',
    }),
    signals: {
      shiftSharePercent: setting('SIGNAL_SHIFT_SHARE_PERCENT', positiveInt.max(100).default(30), {
        description:
          "Signal customer_share: one customer id on at least this percentage of a shift's sales (1..100), in a shift of at least SIGNAL_SHIFT_MIN_SALES sales.",
      }),
      shiftMinSales: setting('SIGNAL_SHIFT_MIN_SALES', positiveInt.max(100_000).default(10), {
        description: 'Signal customer_share: the fewest sales a shift must have before its share of one customer is looked at.',
      }),
      refundWithinHours: setting('SIGNAL_REFUND_WITHIN_HOURS', positiveInt.max(168).default(24), {
        description:
          'Signal earn_then_refund: a sale that earned points counts when the cashier who rang it refunded or voided it within this many hours (1..168).',
      }),
      refundPerCashier: setting('SIGNAL_REFUND_PER_CASHIER', positiveInt.max(10_000).default(3), {
        description:
          'Signal earn_then_refund: a cashier who refunded or voided at least this many of their own sales that earned points in a store day ' +
          '(each within SIGNAL_REFUND_WITHIN_HOURS of the sale). Default 3: one or two can be slips put right; three in a day is worth a look.',
      }),
      multiStoreCount: setting('SIGNAL_MULTI_STORE_COUNT', z.coerce.number().int().min(2).max(100).default(3), {
        description:
          'Signal multi_store_redemptions: redemptions of one customer started at this many stores or more (2..100) within SIGNAL_MULTI_STORE_MINUTES.',
      }),
      multiStoreMinutes: setting('SIGNAL_MULTI_STORE_MINUTES', positiveInt.max(1440).default(30), {
        description: 'Signal multi_store_redemptions: the span of minutes (1..1440) in which those stores redeemed for one customer.',
      }),
      typedIdPerCashier: setting('SIGNAL_TYPED_ID_PER_CASHIER', positiveInt.max(10_000).default(3), {
        description:
          'Signal typed_customer_id: a cashier who started at least this many redemptions in a day from a typed customer id (no QR code or hash, no OTP).',
      }),
    },
  },
});

export type AbuseSettings = SliceOf<typeof abuse>;
export type SignalThresholds = AbuseSettings['signals'];
