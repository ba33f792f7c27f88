import { z } from 'zod';
import { DateTime, Email, Mobile } from '../../contract';
import { absent, CustomerId, exclusive, Id, NO_CONTROL, PositiveMoney, PRINTABLE } from '../fields';
import { REDEMPTION_MACHINE, type RedemptionState } from '../money/machines';

/** Request and answer shapes of the redemption routes. */
export const RedemptionIdParam = z.strictObject({ id: z.string().regex(/^rdm_[A-Za-z0-9_-]{8,64}$/, 'must be a redemption id (rdm_...)') });

/**
 * The customer's hash as the loyalty service hands it out: our sandbox's are six
 * digits; the published reference types it only as a string. No control
 * characters, and none of the QR separators `:` and `|`.
 */
export const Hash = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[^:|]+$/, 'must be the customer\'s hash (no ":" or "|")')
  .regex(PRINTABLE, NO_CONTROL);
/** `qr` is the customer id, then the hash (DESIGN.md section 3): `id:hash`, `id|hash`, or the id directly followed by a six-digit hash. */
export const QrCode = z.string().min(1).max(265).regex(PRINTABLE, NO_CONTROL);
export const Otp = z.string().regex(/^[0-9]{6}$/, 'must be six digits');

/** The fields of a start, described once: its six documented variants reuse them. */
const Qr = QrCode.describe("What the customer's QR code holds: their customer id, then their hash");
const RedeemingCustomer = CustomerId.describe('The loyalty customer id of the customer redeeming, when not scanned from a QR code');
const CustomerHash = Hash.describe("The customer's rotating hash (from their app), which shows they are present");
const HoldAmount = PositiveMoney.describe("Money to redeem, in the account's currency: its worth in points is held");
const HoldPoints = z.number().int().positive().describe('Points to hold');
const HoldRule = Id.describe('A redemption rule of the account (GET /redemption-options) to hold the points of');
const OtpCode = Otp.describe('The six-digit code the customer was sent, when it is already at hand (else POST /redemptions/{id}/otp)');

const StartRedemptionFields = z
  .strictObject({
    qr: Qr.optional(),
    customerId: RedeemingCustomer.optional(),
    hash: CustomerHash.optional(),
    email: Email.optional().describe("The customer's email, when the account merges channels by email"),
    mobile: Mobile.optional().describe("The customer's mobile, when the account merges channels by mobile"),
    amount: HoldAmount.optional(),
    points: HoldPoints.optional(),
    ruleId: HoldRule.optional(),
    otp: OtpCode.optional(),
  })
  .superRefine((v, ctx) => {
    const how = (['amount', 'points', 'ruleId'] as const).filter((k) => v[k] !== undefined);
    if (how.length !== 1) {
      ctx.addIssue({
        code: 'custom',
        path: how.length ? [how[1]] : ['amount'],
        message: `give exactly one of amount, points, ruleId (got ${how.join(', ') || 'none'})`,
      });
    }
    if (v.qr !== undefined && (v.customerId !== undefined || v.hash !== undefined)) {
      ctx.addIssue({ code: 'custom', path: ['qr'], message: 'give either qr, or customerId and hash, not both' });
    }
    if (v.qr === undefined && v.customerId === undefined) {
      ctx.addIssue({ code: 'custom', path: ['customerId'], message: 'give qr, or customerId (with hash)' });
    }
  });

const ASKS = { amount: HoldAmount, points: HoldPoints, ruleId: HoldRule };
const IDENTITIES = {
  qr: { qr: Qr, customerId: absent('qr'), hash: absent('qr') },
  customerId: { customerId: RedeemingCustomer, hash: CustomerHash.optional(), qr: absent('customerId') },
};
/**
 * Exactly one of amount, points, ruleId; and qr, or customerId (with hash):
 * documented as those six variants, checked with messages naming the fields.
 */
export const StartRedemptionBody = exclusive(
  StartRedemptionFields,
  (Object.keys(IDENTITIES) as (keyof typeof IDENTITIES)[]).flatMap((who) =>
    (Object.keys(ASKS) as (keyof typeof ASKS)[]).map((ask) =>
      z.strictObject({
        ...StartRedemptionFields.shape,
        ...Object.fromEntries(Object.keys(ASKS).map((other) => [other, absent(ask)])),
        ...IDENTITIES[who],
        [ask]: ASKS[ask],
      }),
    ),
  ),
);
export type StartRedemptionBody = z.infer<typeof StartRedemptionFields>;

export const SubmitOtpBody = z.strictObject({ otp: Otp.describe('The six-digit code the customer was sent') });

export const RedemptionStateSchema = z.enum(Object.keys(REDEMPTION_MACHINE) as [RedemptionState, ...RedemptionState[]]);

export const RedemptionAskSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('amount').describe('Money was asked for'), amount: z.number().describe("The money asked for, in the account's currency") }),
  z.strictObject({ kind: z.literal('points').describe('Points were asked for'), points: z.number().int().describe('The points asked for') }),
  z.strictObject({ kind: z.literal('rule').describe('A redemption rule was asked for'), ruleId: z.string().describe('The rule asked for') }),
]);

export const RedemptionViewSchema = z.strictObject({
  id: z.string().describe('rdm_...; name it in GET/void/otp and in the payment'),
  state: RedemptionStateSchema.describe(
    'otp_required -> confirming -> held -> paying -> redeemed; held -> voiding -> voided; held -> expired; stand_in -> stand_in_paid -> redeemed | short, stand_in -> voided (a stand-in: the loyalty service was out); stand_in_approval -> stand_in (a manager approved it over the floor limits) | expired | voided. `confirming`, `paying` and `voiding` are a code check, a payment or a void under way (or its outcome not yet known). docs/STATES.md has every transition; ending states are final.',
  ),
  customerId: z.string().describe('The loyalty customer id of the customer redeeming'),
  ask: RedemptionAskSchema.describe('What the till asked to redeem'),
  points: z.number().nullable().describe('Points on hold, or promised in stand-in (null until held)'),
  amount: z.number().nullable().describe('Money value on hold (null until held)'),
  expiresAt: DateTime.nullable().describe('When the hold ends, or when a stand-in not yet paid (or its wait for approval) lapses; null until then set'),
  secondsLeft: z
    .number()
    .int()
    .nonnegative()
    .describe('Seconds until the hold ends or the stand-in lapses; 0 unless held, paying, voiding, stand_in or stand_in_approval'),
  paymentId: z.string().nullable().describe('The payment that claimed this redemption, if any'),
  createdAt: DateTime.describe('When the redemption was started, ISO 8601 UTC'),
  updatedAt: DateTime.describe('When it last changed, ISO 8601 UTC'),
  standIn: z
    .strictObject({
      points: z.number().int().describe('Points spent in stand-in'),
      lastKnownBalance: z.number().describe("The customer's balance at their last lookup, which the points were checked against"),
      cashierMessage: z.string().describe('What the till shows and prints: this is a stand-in, settled when the loyalty service is back'),
    })
    .optional()
    .describe('Present on a stand-in redemption (the loyalty service was out; no hold): print the receipt as a stand-in'),
});

/** The account's redemption rules, as the till's buttons show them. */
export const RedemptionOptionsSchema = z.strictObject({
  redemptionFactor: z.number().nullable().describe('Money value of one point'),
  rules: z
    .array(
      z.strictObject({
        ruleId: z.string().describe('Send as ruleId to POST /redemptions'),
        name: z.string().describe("The rule's name for the till's button (its coupon's name, else its id)"),
        points: z.number().describe('Points the rule redeems'),
        value: z.number().describe('Money the rule is worth, as the loyalty service gives it (0 when it does not)'),
        type: z.string().describe("The rule's coupon type (fixed_discount, percentage_discount, free_product...), else its rule type, else unknown"),
      }),
    )
    .describe("The account's redemption rules"),
  fetchedAt: DateTime.describe('When this instance read them from the loyalty service'),
});
