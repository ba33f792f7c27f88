import { z } from 'zod';

/**
 * `?receipt=` on the sale, refund and sale-void routes. The published payment
 * and refund answers carry no balance, so the receipt's balance, pending
 * points, next expiry and tier can only be read once the write is done: a
 * second upstream round trip after it (those reads run side by side).
 * `full` (default) waits for them; `none` answers right after the write with
 * `receipt: null` (the write's own figures are in the answer either way), for
 * a till that prints no loyalty block or reads the balance later.
 */
export const RECEIPT_DEFAULT = 'full';

export const ReceiptQuery = z.strictObject({
  receipt: z
    .enum(['full', 'none'])
    .default(RECEIPT_DEFAULT)
    .describe(
      '`full` (default): the receipt block, read after the write (one more upstream round trip). `none`: answer right after the write, `receipt: null`.',
    ),
});
export type ReceiptMode = z.output<typeof ReceiptQuery>['receipt'];
