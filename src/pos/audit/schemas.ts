import { z } from 'zod';
import { CustomerId, Id } from '../fields';
import { AUDIT_ACTIONS, AUDIT_OUTCOMES, START_PROOFS } from './types';
import { SIGNALS } from './signals';

const Day = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date, YYYY-MM-DD');
const When = z.iso.datetime({ offset: true });
const SafeId = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$/, 'must be 1-64 letters, digits, ".", "_", ":" or "-"');
const ACTION_LIST = new RegExp(`^(${AUDIT_ACTIONS.join('|')})(,(${AUDIT_ACTIONS.join('|')}))*$`);

export const AuditQuery = z.strictObject({
  date: Day.optional().describe('A day of the store (STORE_TIME_ZONE); default today. Or give `from` and `to` (at most 31 days).'),
  from: When.optional().describe('Start of the window, an ISO 8601 date-time with its offset (Z for UTC); give it with `to`, not with `date`'),
  to: When.optional().describe('End of the window (inclusive), an ISO 8601 date-time; at most 31 days after `from`'),
  terminalId: Id.optional().describe("Only this till's entries"),
  cashierId: SafeId.optional().describe('As the tills send it in X-Cashier-Id'),
  customerId: CustomerId.optional().describe('Only entries about this loyalty customer'),
  action: z
    .string()
    .regex(ACTION_LIST, `one or more of ${AUDIT_ACTIONS.join(', ')}, comma separated`)
    .optional()
    .describe("E.g. `redemption_start,otp_step,payment`: who spent this customer's points"),
  limit: z.coerce.number().int().min(1).max(500).default(100).describe('Entries per page, 1 to 500 (default 100)'),
  after: z
    .string()
    .regex(/^[0-9]{1,20}-[0-9]{1,20}$/, 'must be the `next` of the previous page')
    .optional()
    .describe('The `next` of the previous page, with the same filters'),
  format: z.enum(['json', 'csv']).default('json').describe('`csv`: the same page as CSV (text/csv)'),
});

const points = (what: string) => z.number().optional().describe(`Points ${what}, as the loyalty service answered`);
const money = (what: string) => z.number().optional().describe(`Money ${what}, in the store's currency`);
export const AuditEntryViewSchema = z
  .object({
    id: z.string().describe("The entry's place in the store's trail (a Redis Stream id, or a sequence number in memory)"),
    at: z.string().describe('When the outcome was known, ISO 8601 UTC'),
    storeId: z.string().describe("The till's store"),
    terminalId: z.string().describe('The till that asked'),
    cashierId: z.string().optional().describe('The cashier, as the till sent it in X-Cashier-Id'),
    shiftId: z.string().optional().describe('The shift, as the till sent it in X-Shift-Id'),
    requestId: z.string().optional().describe("The request's id (X-Request-Id), to find it in the logs"),
    action: z.enum(AUDIT_ACTIONS).describe('What the cashier did'),
    outcome: z
      .enum(AUDIT_OUTCOMES)
      .describe(
        'applied: the loyalty service took it; refused: certainly not applied (see code); unknown: it may have been applied; ' +
          "queued: waiting in the outbox (see outboxId); settled: an earlier unknown outcome, settled from the loyalty service's record",
      ),
    code: z.string().optional().describe("A refusal's or an unknown outcome's code; what a repair settled it as; `created`/`updated` for a sign-up"),
    repair: z.string().optional().describe('settled: which claim the repair settled (e.g. `sale:payment:P1`, `redemption:rdm_x`)'),
    afterCrash: z.boolean().optional().describe("Settled after its claim's lease ended: the action's own outcome was lost in a crash"),
    customerId: z.string().optional().describe('The loyalty customer it was about'),
    paymentId: z.string().optional().describe("The sale's payment id"),
    refundId: z.string().optional().describe("The refund's id"),
    redemptionId: z.string().optional().describe('The redemption (rdm_...)'),
    couponLockId: z.string().optional().describe('The coupon lock (cpl_...)'),
    outboxId: z.string().optional().describe('queued: the outbox entry that holds it'),
    names: z.array(z.string()).optional().describe("Event names, coupon codes, or a batch upload's order ids"),
    pointsEarned: points('the payment earned'),
    pointsRedeemed: points('the payment redeemed'),
    pointsHeld: points('a redemption held'),
    pointsTakenBack: points('a refund or sale void took back'),
    amountPaid: money("paid: the sale's totalPaid, or a batch upload's orders together, as the till sent them"),
    amountRefunded: money('a refund or sale void gave back, as the loyalty service answered (settled after a crash: the amount the till asked for)'),
    amountHeld: money('a redemption held (what its points are worth), as the loyalty service answered'),
    couponWorth: money('the locked coupons take off the basket'),
    proof: z
      .enum(START_PROOFS)
      .optional()
      .describe(
        'redemption_start: how the customer was shown to be present: qr (QR code scanned), hash (typed id with the hash from their app), ' +
          'otp (a code sent to them), none (a typed customer id alone)',
      ),
  })
  .meta({ id: 'AuditEntry' });

export const AuditPageSchema = z
  .object({
    storeId: z.string().describe("The manager's store: only its entries are read"),
    from: z.string().describe('Start of the window read, ISO 8601 UTC'),
    to: z.string().describe('End of the window read (inclusive), ISO 8601 UTC'),
    entries: z.array(AuditEntryViewSchema).describe('The entries, oldest first'),
    next: z.string().nullable().describe('Pass as `after` for the next page; null on the last'),
  })
  .meta({ id: 'AuditPage' });

export const SignalsQuery = z.strictObject({
  date: Day.optional().describe('A day of the store (STORE_TIME_ZONE); default today'),
});

const ids = (what: string) => z.array(z.string()).describe(what);
export const AbuseSignalSchema = z
  .object({
    signal: z
      .enum(SIGNALS)
      .describe(
        "customer_share: one customer on a large share of a shift's sales; earn_then_refund: a cashier who refunded or voided several of their own " +
          "sales that earned points, each soon after, in a day; multi_store_redemptions: one customer's redemptions at several stores within " +
          'minutes; typed_customer_id: a cashier starting redemptions from typed customer ids (no QR code, no OTP)',
      ),
    from: z.string().describe("The pattern's first act, ISO 8601 UTC"),
    to: z.string().describe("The pattern's last act, ISO 8601 UTC"),
    customerId: z.string().optional().describe('The customer it is about (earn_then_refund: when all the sales were to one customer)'),
    shiftId: z.string().optional().describe('customer_share: the shift (X-Shift-Id); absent: sales of a till that sent no shift id'),
    count: z.number().describe("What was counted: the customer's sales, the cashier's own sales refunded, the redemptions, the typed starts"),
    threshold: z.number().describe('The threshold it met (SIGNAL_* settings: percent, sales, stores, starts)'),
    of: z.number().optional().describe("customer_share: the shift's sales; multi_store_redemptions: how many stores in all"),
    note: z.string().describe('The signal in words'),
    parts: z
      .array(
        z.object({
          storeId: z.string().describe("The store this part is of: always the caller's own"),
          cashierIds: ids('Cashiers of this store in the pattern (X-Cashier-Id)'),
          terminalIds: ids("This store's tills in the pattern"),
          paymentIds: ids('Sales'),
          refundIds: ids('Refunds and voids'),
          redemptionIds: ids('Redemptions'),
        }),
      )
      .describe("What this store's tills did in it: only the caller's own store's part, even of a pattern across stores"),
  })
  .meta({ id: 'AbuseSignal' });

export const SignalsPageSchema = z
  .object({
    storeId: z.string().describe("The manager's store"),
    date: z.string().describe("The store's day, YYYY-MM-DD"),
    from: z.string().describe('Start of the day, ISO 8601 UTC'),
    to: z.string().describe('End of the day (inclusive), ISO 8601 UTC'),
    signals: z.array(AbuseSignalSchema).describe('The signals this store has a part in, oldest first; none on a clean day'),
  })
  .meta({ id: 'AbuseSignals' });
