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
  customerId: CustomerId,
  orderId: Id,
  orderDate: DateTime,
  totalPaid: Money,
  email: Email.optional(),
  mobile: Mobile.optional(),
  guest: z.boolean().optional().describe('True for a guest (not signed-up) customer; otherwise the customer is treated as registered'),
});
export const BatchOrdersBody = z.strictObject({ orders: z.array(BatchOrder).min(1).max(1000) });
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
  jobId: z.number().int(),
  status: z.enum(['queued', 'running', 'completed', 'failed']),
  total: z.number().int(),
  processed: z.number().int(),
  succeeded: z.number().int(),
  failed: z.number().int(),
  failures: z
    .array(
      z.strictObject({
        orderId: z.string().nullable(),
        customerId: z.string().nullable(),
        reason: z.string().describe("Our words, by the loyalty service's code"),
      }),
    )
    .describe('Orders that failed; ids are null when the loyalty service did not name them'),
});

export const QueuedOrderBatchSchema = queuedAnswer({ orders: z.number().int() });
