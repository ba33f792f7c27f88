import type { Merchant } from '../../contract';
import type { Store } from './types';

/** The loyalty service's merchant and branch, filled from the terminal's store (never from the till's body). */
export function merchantOf(store: Store): Merchant {
  return {
    uniqueId: store.merchant.uniqueId,
    name: store.merchant.name,
    branch: { uniqueId: store.branch.uniqueId, name: store.branch.name },
  };
}
