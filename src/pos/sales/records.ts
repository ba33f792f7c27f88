import type { RedisClient } from '../../platform/redis';
import { createIdRecords, type IdChange, type IdEntry, type IdRecords } from '../money/ids/records';
import type { WriteRecord } from '../money/ids/same-write';

export { stateOf } from '../money/ids/records';

/**
 * Which store made each sale, refund and batch-uploaded order (money/ids
 * keeps them). Refunds and voids of a sale stay in its store (unless
 * RETURNS_AT_ANY_BRANCH), and reading a sale or refund back is scoped to it.
 */
export interface SaleEntry extends IdEntry<'payment' | 'refund'>, WriteRecord {
  customerId: string;
  /** The sale itself (for a refund: the sale it refunds). */
  paymentId: string;
  /** The refund id of the void under way or done (`voiding`, `voided`). */
  voidRefundId?: string;
  /** Rebuilt from the upstream's record (this BFF had none): what the sale did here (its coupons) is not known. */
  rebuilt?: true;
  /** A sale sent as a tracked order (SALES_RECORDED_AS=order); absent: as a payment. Its retries go the same way. */
  recordedAs?: 'order';
}

export type SaleChange = IdChange<SaleEntry>;
export type SaleRecords = IdRecords<SaleEntry>;

export function createSaleRecords(opts: { redis?: RedisClient; prefix: string; ttlDays: number; clock?: () => number }): SaleRecords {
  return createIdRecords<SaleEntry>(opts);
}
