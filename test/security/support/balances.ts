import type { SandboxContext } from '../../../src/sandbox';
import { readBalance } from '../../../src/sandbox/operations/customers';

/**
 * The customers' balances, read in-process with the operation behind
 * `GET /customers/:id/balance` (one fuzz case, one read: HTTP here would
 * double the cost of every case). A missing customer reads as "absent".
 */
export function balanceSnapshot(ctx: SandboxContext, apiKey: string, customerIds: string[]): string {
  const account = ctx.store.account(apiKey);
  if (!account) return 'no account';
  return customerIds
    .map((id) => {
      try {
        return JSON.stringify(readBalance(ctx, account, id));
      } catch {
        return `${id}: absent`;
      }
    })
    .join('|');
}
