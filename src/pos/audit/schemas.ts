import { z } from 'zod';
import { CustomerId, Id } from '../fields';
import { AUDIT_ACTIONS, AUDIT_OUTCOMES } from './types';

const Day = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date, YYYY-MM-DD');
const When = z.iso.datetime({ offset: true });
const SafeId = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$/, 'must be 1-64 letters, digits, ".", "_", ":" or "-"');
const ACTION_LIST = new RegExp(`^(${AUDIT_ACTIONS.join('|')})(,(${AUDIT_ACTIONS.join('|')}))*$`);

export const AuditQuery = z.strictObject({
  date: Day.optional().describe('A day of the store (STORE_TIME_ZONE); default today. Or give `from` and `to` (at most 31 days).'),
  from: When.optional(),
  to: When.optional(),
  terminalId: Id.optional(),
  cashierId: SafeId.optional().describe('As the tills send it in X-Cashier-Id'),
  customerId: CustomerId.optional(),
  action: z
    .string()
    .regex(ACTION_LIST, `one or more of ${AUDIT_ACTIONS.join(', ')}, comma separated`)
    .optional()
    .describe("E.g. `redemption_start,otp_step,payment`: who spent this customer's points"),
  limit: z.coerce.number().int().min(1).max(500).default(100),
  after: z
    .string()
    .regex(/^[0-9]{1,20}-[0-9]{1,20}$/, 'must be the `next` of the previous page')
    .optional()
    .describe('The `next` of the previous page, with the same filters'),
  format: z.enum(['json', 'csv']).default('json').describe('`csv`: the same page as CSV (text/csv)'),
});

const n = z.number().optional();
export const AuditEntryViewSchema = z
  .object({
    id: z.string(),
    at: z.string(),
    storeId: z.string(),
    terminalId: z.string(),
    cashierId: z.string().optional(),
    shiftId: z.string().optional(),
    requestId: z.string().optional(),
    action: z.enum(AUDIT_ACTIONS),
    outcome: z.enum(AUDIT_OUTCOMES),
    code: z.string().optional().describe("A refusal's or an unknown outcome's code; what a repair settled it as; `created`/`updated` for a sign-up"),
    repair: z.string().optional(),
    afterCrash: z.boolean().optional().describe("Settled after its claim's lease ended: the action's own outcome was lost in a crash"),
    customerId: z.string().optional(),
    paymentId: z.string().optional(),
    refundId: z.string().optional(),
    redemptionId: z.string().optional(),
    couponLockId: z.string().optional(),
    outboxId: z.string().optional(),
    names: z.array(z.string()).optional().describe("Event names, coupon codes, or a batch upload's order ids"),
    pointsEarned: n,
    pointsRedeemed: n,
    pointsHeld: n,
    pointsTakenBack: n,
    amountPaid: n,
    amountRefunded: n,
    amountHeld: n,
    couponWorth: n,
  })
  .meta({ id: 'AuditEntry' });

export const AuditPageSchema = z
  .object({
    storeId: z.string(),
    from: z.string(),
    to: z.string(),
    entries: z.array(AuditEntryViewSchema),
    next: z.string().nullable().describe('Pass as `after` for the next page; null on the last'),
  })
  .meta({ id: 'AuditPage' });
