import { z } from 'zod';
import { DateTime, Email, Mobile } from '../../contract';
import { CustomerId, Id, Money } from '../fields';
import { queuedAnswer } from '../outbox/schemas';

/** The end-of-day order upload and its job: requests and answers. */

export const JobIdParam = z.strictObject({
  jobId: z
    .string()
    .regex(/^[0-9]{1,15}$/, 'must be a numeric job id')
    .transform(Number),
});

export const BatchOrder = z.strictObject({
  customerId: CustomerId.describe('The loyalty customer id of the buyer'),
  orderId: Id.describe("The till's own unique id of the order (a refund or void names it as paymentId)"),
  orderDate: DateTime.describe('When the order was placed, an ISO 8601 date-time'),
  totalPaid: Money.describe('What the customer finally paid after discounts and coupons: what earns points'),
  email: Email.optional().describe("The customer's email, when the account merges channels by email"),
  mobile: Mobile.optional().describe("The customer's mobile, when the account merges channels by mobile"),
  guest: z.boolean().optional().describe('True for a guest (not signed-up) customer; otherwise the customer is treated as registered'),
});
export const BatchOrdersBody = z.strictObject({ orders: z.array(BatchOrder).min(1).max(1000).describe('1 to 1000 orders, of one or many customers') });
export type BatchOrdersBody = z.infer<typeof BatchOrdersBody>;

export const OrderBatchAcceptedSchema = z.strictObject({
  jobId: z
    .number()
    .int()
    .nullable()
    .describe(
      'null when the loyalty service took the upload but its answer could not be read: the job id is lost. Do not upload it again; each order is settled from its own record',
    ),
  orders: z.number().int().describe('Orders in the upload'),
});

export const OrderBatchStatusSchema = z.strictObject({
  jobId: z.number().int().describe("The loyalty service's id of the upload's job"),
  status: z.enum(['queued', 'running', 'completed', 'failed']).describe("The job's state, as the loyalty service reports it"),
  total: z.number().int().describe('Orders in the upload'),
  processed: z.number().int().describe('Orders processed so far'),
  succeeded: z.number().int().describe('Orders recorded'),
  failed: z.number().int().describe('Orders refused (see failures)'),
  failures: z
    .array(
      z.strictObject({
        orderId: z.string().nullable().describe('The order refused'),
        customerId: z.string().nullable().describe("The order's customer"),
        reason: z.string().describe("Our words, by the loyalty service's code"),
      }),
    )
    .describe('Orders that failed; ids are null when the loyalty service did not name them'),
});

export const QueuedOrderBatchSchema = queuedAnswer({ orders: z.number().int().describe('Orders in the queued upload') });
