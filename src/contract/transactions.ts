import { z } from 'zod';

/** Query of `GET /transactions` (the published parameters; every one optional). */
export const TransactionsQuery = z.strictObject({
  customerId: z.string().min(1).max(200).optional(),
  direction: z.enum(['+', '-']).optional(),
  status: z.string().max(50).optional(),
  /** The page starts after this transaction (the service's numeric id); 0 from the start. */
  startAfter: z.coerce.number().int().min(0).optional(),
  /** 50 when absent, at most 200. */
  limit: z.coerce.number().int().min(1).max(200).optional(),
});
export type TransactionsQuery = z.infer<typeof TransactionsQuery>;

/**
 * One transaction of the account's list. `merchantName` and `branchName` are
 * the names the payment or refund carried in its `merchant`; absent when it
 * carried none.
 */
export const AccountTransaction = z.object({
  transactionId: z.string(),
  gameballTransactionId: z.string(),
  type: z.string(),
  direction: z.enum(['+', '-']),
  customerId: z.string(),
  points: z.number(),
  amount: z.number(),
  transactionTime: z.string(),
  status: z.string(),
  merchantName: z.string().optional(),
  branchName: z.string().optional(),
});
export type AccountTransaction = z.infer<typeof AccountTransaction>;

/** `GET /transactions`: one page, oldest first; `hasMore` when another page follows. */
export const TransactionsResponse = z.object({ transactions: z.array(AccountTransaction), count: z.number().int(), hasMore: z.boolean() });
export type TransactionsResponse = z.infer<typeof TransactionsResponse>;
