import type { OPERATIONS } from './operations';
import type { ServedOperationId } from './sandbox-operations';

/**
 * The loyalty service's published limits (reference: overview/rate-limiting):
 * each resource has a rate per second and a quota per 30 seconds, for GET and
 * POST separately where the table splits them. Both the sandbox (which enforces
 * them) and the BFF (which stays under them) read this one table.
 */
export type LimitBucket = 'transactionsRead' | 'transactionsWrite' | 'coupons' | 'customersRead' | 'customersWrite' | 'events' | 'orders' | 'others';

export interface PublishedLimit {
  /** Requests per second. */
  rate: number;
  /** Requests per 30-second window. */
  quota: number;
  /** The table's row, for messages and docs. */
  row: string;
}

export const QUOTA_WINDOW_SECONDS = 30;

export const PUBLISHED_LIMITS: Readonly<Record<LimitBucket, PublishedLimit>> = {
  transactionsRead: { rate: 30, quota: 360, row: 'Transactions GET' },
  transactionsWrite: { rate: 30, quota: 360, row: 'Transactions POST' },
  coupons: { rate: 30, quota: 360, row: 'Coupons (all methods)' },
  customersRead: { rate: 100, quota: 1200, row: 'Customers GET' },
  customersWrite: { rate: 30, quota: 360, row: 'Customers POST' },
  events: { rate: 100, quota: 1200, row: 'Events' },
  orders: { rate: 30, quota: 360, row: 'Orders (tracking)' },
  others: { rate: 30, quota: 360, row: 'Others' },
};

/**
 * Which bucket each operation counts against. By path: `/customers/:id/coupons`
 * is a customer read (the reference files it under customer management); a
 * payment, like a hold, OTP or refund, is a transaction write; a DELETE is a
 * write. Order reads and previews take the tracking row (the cashback row is for
 * order-cashback calculation, which this product does not call); batches and
 * configurations are "Others".
 */
export const OPERATION_BUCKET: Readonly<Record<keyof typeof OPERATIONS, LimitBucket>> = {
  hold: 'transactionsWrite',
  payment: 'transactionsWrite',
  trackOrder: 'orders',
  redeem: 'transactionsWrite',
  refund: 'transactionsWrite',
  otp: 'transactionsWrite',
  holdCancel: 'transactionsWrite',
  holdLookup: 'transactionsRead',
  transactions: 'transactionsRead',
  couponsValidate: 'coupons',
  couponValidate: 'coupons',
  couponBurn: 'coupons',
  couponRelease: 'coupons',
  coupons: 'customersRead',
  tierProgress: 'customersRead',
  hash: 'customersRead',
  balance: 'customersRead',
  upsertCustomer: 'customersWrite',
  deleteCustomer: 'customersWrite',
  deleteCustomerPost: 'customersWrite',
  events: 'events',
  rewardPreview: 'orders',
  orderTransactions: 'orders',
  batchOrders: 'others',
  batchStatus: 'others',
  redemptionConfig: 'others',
};

/**
 * The bucket of every operation the sandbox serves: the table above, and the
 * sandbox-only operations (none now) by the same rows.
 */
export const SERVED_OPERATION_BUCKET: Readonly<Record<ServedOperationId, LimitBucket>> = {
  ...OPERATION_BUCKET,
};
