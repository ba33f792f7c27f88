import type { PosSettings } from '../settings';
import type { Store } from './types';

/** The settings a store of the terminals file may override, with the fleet's values as their defaults. */
export type StorePolicy = Required<Pick<PosSettings, 'cashierRequired' | 'kioskEvents' | 'holdSafetyMarginSeconds' | 'returnsAtAnyBranch'>> &
  Pick<PosSettings, 'tillWaitSeconds' | 'redemptionCapPointsPerCustomerDay' | 'standIn'>;

/**
 * The values a store works by: its own from the terminals file where it names
 * them (`requireCashier`, `kioskEvents`, `tillWaitSeconds`,
 * `redemptionCapPointsPerCustomerDay`, each of `standIn`'s values), else the settings. The one place a
 * store's override is read; a caller passes the settings it reads and gets
 * those back, each the store's effective value.
 */
export function storePolicy<S extends Partial<StorePolicy>>(store: Store, settings: S): S {
  const given: Partial<StorePolicy> = settings;
  const own: Partial<StorePolicy> = {
    ...('cashierRequired' in given ? { cashierRequired: store.requireCashier ?? given.cashierRequired } : {}),
    ...('kioskEvents' in given ? { kioskEvents: store.kioskEvents ?? given.kioskEvents } : {}),
    ...('tillWaitSeconds' in given ? { tillWaitSeconds: store.tillWaitSeconds ?? given.tillWaitSeconds } : {}),
    ...('redemptionCapPointsPerCustomerDay' in given
      ? { redemptionCapPointsPerCustomerDay: store.redemptionCapPointsPerCustomerDay ?? given.redemptionCapPointsPerCustomerDay }
      : {}),
    // Stand-in: the store's own values replace the fleet's one by one (a store may turn it on, or lower a limit, alone).
    ...('standIn' in given && given.standIn ? { standIn: { ...given.standIn, ...definedOnly(store.standIn) } } : {}),
  };
  return { ...settings, ...own };
}

function definedOnly<T extends object>(o: T | undefined): Partial<T> {
  return Object.fromEntries(Object.entries(o ?? {}).filter(([, v]) => v !== undefined)) as Partial<T>;
}
