import type { AccountSettings, TierSettings } from '../accounts';
import type { CustomerRecord } from '../state/records';

/** The customer's progress by the account's tiering-up method. */
export function progressOf(c: CustomerRecord, method: AccountSettings['tierProgressMethod']): number {
  switch (method) {
    case 'amountSpent':
      return Math.max(0, c.amountSpent ?? 0);
    case 'pointsEarned':
      return Math.max(0, c.totalEarned);
    case 'orders':
      return c.orders ?? 0;
    case 'referrals':
      return c.referrals ?? 0;
    case 'score':
      return c.score ?? 0;
  }
}

/** Tiers in programme order. */
export function orderedTiers(settings: AccountSettings): TierSettings[] {
  return [...settings.tiers].sort((a, b) => a.order - b.order || a.minProgress - b.minProgress);
}

/** The highest tier whose threshold the progress reaches (undefined when the account has no tiers). */
export function tierOf(settings: AccountSettings, progress: number): TierSettings | undefined {
  let current: TierSettings | undefined;
  for (const t of orderedTiers(settings)) if (progress >= t.minProgress) current = t;
  return current ?? orderedTiers(settings)[0];
}

export function currentTierOf(settings: AccountSettings, c: CustomerRecord): TierSettings | undefined {
  return tierOf(settings, progressOf(c, settings.tierProgressMethod));
}
