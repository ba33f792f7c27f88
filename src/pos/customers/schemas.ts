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
  displayName: Name.optional(),
  firstName: Name.optional(),
  lastName: Name.optional(),
  email: Email.optional().describe("The customer's email; also what an account that merges channels by email joins the customer's ids by"),
  mobile: Mobile.optional().describe("The customer's mobile; also what an account that merges channels by mobile joins the customer's ids by"),
  dateOfBirth: z.iso.date().optional().describe('YYYY-MM-DD'),
  gender: Code(20).optional(),
  preferredLanguage: z
    .string()
    .regex(/^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$/, 'must be a language tag such as en or ar-EG')
    .optional(),
  city: Name.optional(),
  country: Name.optional(),
  zip: Code(20).optional(),
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
  customerId: z.string(),
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
    .optional(),
});

const shownIfGiven = 'null when the loyalty service did not give it';
export const CustomerSummarySchema = z.strictObject({
  customerId: z.string(),
  currency: z.string().nullable().describe(shownIfGiven),
  pointsName: z.string().nullable().describe(shownIfGiven),
  points: z
    .strictObject({
      available: z.number().describe('Always given: what can be redeemed now'),
      pending: z.number().nullable(),
      total: z.number().nullable(),
      held: z.number().nullable(),
      earnedAllTime: z.number().nullable(),
    })
    .describe(`Points; each but available is ${shownIfGiven}`),
  value: z
    .strictObject({ available: z.number().nullable(), pending: z.number().nullable(), total: z.number().nullable() })
    .describe(`Money value of the points; ${shownIfGiven}`),
  tier: z
    .strictObject({ current: z.string(), next: z.string().nullable().describe('Null in the top tier'), progress: z.number(), nextAt: z.number().nullable() })
    .nullable()
    .describe('Null when tier progress could not be read (then "tier" is in unavailable)'),
  coupons: z
    .array(
      z
        .strictObject({
          code: z.string(),
          name: z.string().nullable(),
          value: z.number().nullable(),
          currency: z.string().nullable(),
          expiresAt: DateTime.nullable(),
          usable: z.boolean().nullable(),
        })
        .describe(`Each field but code is ${shownIfGiven}`),
    )
    .nullable()
    .describe('Null when coupons could not be read (then "coupons" is in unavailable)'),
  unavailable: z.array(z.string()).describe('Parts that could not be read this time: "tier", "coupons"'),
});

export const CustomerHashSchema = z.strictObject({
  customerId: z.string(),
  hash: z.string().describe("The loyalty service's hash (six digits from the bundled sandbox); changes after each transaction of the customer"),
  qr: z.string().describe('What to render as the QR code: customer id, ":", hash'),
});

export const CustomerDeletedSchema = z.strictObject({ customerId: z.string(), deleted: z.boolean().describe('Always true') });
