import { z } from 'zod';
import { DateTime, Email, Mobile } from '../../contract';
import { CustomerId, NO_CONTROL, PRINTABLE } from '../fields';

/** Request and answer shapes of the customer routes: look-up, sign-up, the QR hash, deletion. */
export const CustomerIdParam = z.strictObject({ id: CustomerId });

/**
 * The customer sign-up at the till (`PUT /customers/:id`): the profile fields a
 * till collects, a subset of the published `customerAttributes`. Strict like
 * every cashier request, so a misspelt field is a 400 naming it.
 */
/** No control or invisible characters: names end up in logs and on receipts. */
const Name = z.string().trim().min(1).max(200).regex(PRINTABLE, NO_CONTROL);
const Code = (max: number) =>
  z
    .string()
    .trim()
    .min(1)
    .max(max)
    .regex(/^[A-Za-z0-9 _-]+$/, 'letters, digits, space, _ and - only');

export const RegisterCustomerBody = z.strictObject({
  displayName: Name.optional().describe('The name the customer goes by, as shown to them'),
  firstName: Name.optional().describe("The customer's first name"),
  lastName: Name.optional().describe("The customer's last name"),
  email: Email.optional().describe("The customer's email; also what an account that merges channels by email joins the customer's ids by"),
  mobile: Mobile.optional().describe("The customer's mobile; also what an account that merges channels by mobile joins the customer's ids by"),
  dateOfBirth: z.iso.date().optional().describe('YYYY-MM-DD'),
  gender: Code(20).optional().describe("The customer's gender, as the account codes it (letters, digits, space, _ and -)"),
  preferredLanguage: z
    .string()
    .regex(/^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$/, 'must be a language tag such as en or ar-EG')
    .optional()
    .describe("The customer's language, a language tag such as en or ar-EG"),
  city: Name.optional().describe("The customer's city"),
  country: Name.optional().describe("The customer's country"),
  zip: Code(20).optional().describe("The customer's postal code"),
  guest: z.boolean().optional().describe('True for a customer who does not sign up (a guest checkout)'),
});
/** What a till sends: at least one field (a registration with nothing to say is a till bug, not a sign-up). */
export const RegisterCustomerRequest = RegisterCustomerBody.refine((b) => Object.keys(b).length > 0, {
  error: `give at least one of ${Object.keys(RegisterCustomerBody.shape).join(', ')}`,
}).meta({ minProperties: 1 });
export type RegisterCustomerBody = z.infer<typeof RegisterCustomerBody>;

export const RegistrationOutcome = z.enum(['created', 'updated']);
export type RegistrationOutcome = z.infer<typeof RegistrationOutcome>;

export const CustomerRegisteredSchema = z.strictObject({
  customerId: z.string().describe("The loyalty customer id signed up (the path's id)"),
  outcome: RegistrationOutcome.describe(
    'created: the loyalty service did not know this customer id before the call; updated: the profile existed and was updated (never duplicated)',
  ),
  loyaltyId: z
    .string()
    .nullable()
    .describe("The loyalty service's own id of the profile (the same on every call for one customer); null when it did not give one"),
  profile: RegisterCustomerBody.describe('The fields this call sent (fields not sent keep their earlier values)'),
});
export type CustomerRegistered = z.infer<typeof CustomerRegisteredSchema>;

export const TierQuery = z.strictObject({
  lang: z
    .string()
    .regex(/^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})?$/, 'must be a language code')
    .optional()
    .describe("The language of the tier names (e.g. en, ar); default the account's language"),
});

const shownIfGiven = 'null when the loyalty service did not give it';
export const CustomerSummarySchema = z.strictObject({
  customerId: z.string().describe('The loyalty customer id looked up'),
  currency: z.string().nullable().describe(shownIfGiven),
  pointsName: z.string().nullable().describe(shownIfGiven),
  points: z
    .strictObject({
      available: z.number().describe('Always given: what can be redeemed now'),
      pending: z.number().nullable().describe('Earned but not usable until the return window ends; not in available'),
      total: z.number().nullable().describe('All the points the customer has, pending ones included'),
      held: z.number().nullable().describe('Points on hold for a redemption (the bundled sandbox gives it; the published interface has no such field)'),
      earnedAllTime: z.number().nullable().describe('Every point the customer has ever earned'),
    })
    .describe(`Points; each but available is ${shownIfGiven}`),
  value: z
    .strictObject({
      available: z.number().nullable().describe('What the available points are worth'),
      pending: z.number().nullable().describe('What the pending points are worth'),
      total: z.number().nullable().describe('What all the points are worth, pending ones included'),
    })
    .describe(`Money value of the points; ${shownIfGiven}`),
  tier: z
    .strictObject({
      current: z.string().describe("The customer's tier name"),
      next: z.string().nullable().describe('Null in the top tier'),
      progress: z.number().describe("Progress toward the next tier, in the account's tiering-up measure (amount spent, points earned...)"),
      nextAt: z.number().nullable().describe('The progress the next tier needs; null in the top tier'),
    })
    .nullable()
    .describe('Null when tier progress could not be read (then "tier" is in unavailable)'),
  coupons: z
    .array(
      z
        .strictObject({
          code: z.string().describe('The code to name at the till'),
          name: z.string().nullable().describe("The coupon's name"),
          value: z.number().nullable().describe("The coupon's value (money off or a percentage, by its type)"),
          currency: z.string().nullable().describe("The currency of the coupon's value"),
          expiresAt: DateTime.nullable().describe('When it expires, ISO 8601 UTC'),
          usable: z.boolean().nullable().describe('Whether the customer can use it now'),
        })
        .describe(`Each field but code is ${shownIfGiven}`),
    )
    .nullable()
    .describe('Null when coupons could not be read (then "coupons" is in unavailable)'),
  unavailable: z.array(z.string()).describe('Parts that could not be read this time: "tier", "coupons"'),
});

export const CustomerHashSchema = z.strictObject({
  customerId: z.string().describe('The loyalty customer id'),
  hash: z.string().describe("The loyalty service's hash (six digits from the bundled sandbox); changes after each transaction of the customer"),
  qr: z.string().describe('What to render as the QR code: customer id, ":", hash'),
});

const count = (what: string) => z.number().int().nonnegative().describe(what);

export const CustomerDeletedSchema = z.strictObject({
  customerId: z.string().describe('The loyalty customer id deleted'),
  deleted: z.boolean().describe('Always true'),
  erased: z
    .strictObject({
      redemptions: count('Redemptions kept under the pseudonym, contact details and hash dropped'),
      couponLocks: count('Coupon locks kept under the pseudonym'),
      sales: count('Sale and refund records kept under the pseudonym'),
      otpTickets: count('OTP tickets dropped'),
      outboxEntries: count('Delivered or discarded outbox entries kept under the pseudonym'),
      keptAnswers: count('Answers kept for an Idempotency-Key that named the customer, dropped'),
      tillAnswers: count('Read-back answers (of a 202) that named the customer, dropped'),
      auditEntries: count('Audit entries whose customer id is now the pseudonym'),
    })
    .describe('What this BFF erased at once (docs/operator/privacy.md); a second pass follows after ERASURE_SECOND_PASS_SECONDS'),
});
