import type { Tier, TierProgressResponse } from '../../contract';
import type { TierSettings } from '../accounts';
import { orderedTiers, progressOf, tierOf } from '../domain/tiers';
import { loyaltyErrors } from '../errors';
import type { AccountEntry } from '../state/store';
import { requireCustomer } from './customers';

export type TierExpansion = 'tier' | 'referrals';

export interface TierProgressOptions {
  /** The `lang` header: picks `names[lang]` (or its primary subtag), else the default name. */
  lang?: string;
  expand: readonly TierExpansion[];
}

function translated(tier: TierSettings, lang: string | undefined): string {
  if (!lang) return tier.name;
  const wanted = lang.trim().toLowerCase();
  const primary = wanted.split(/[-_]/)[0];
  for (const [code, name] of Object.entries(tier.names)) {
    if (code.toLowerCase() === wanted) return name;
  }
  for (const [code, name] of Object.entries(tier.names)) {
    if (code.toLowerCase() === primary) return name;
  }
  return tier.name;
}

function shown(tier: TierSettings, lang: string | undefined): Tier {
  return { order: tier.order, name: translated(tier, lang), minProgress: tier.minProgress, icon: tier.icon };
}

/**
 * `GET /customers/:id/tier-progress`: the customer's tier, the next one and
 * their progress by the account's tiering-up method, all computed from what
 * the customer has done in the sandbox. `next` is always an object, as
 * published: in the top tier it is the top tier itself (nothing is left to
 * reach), so `next.order === current.order` tells a client "top tier".
 */
export function readTierProgress(account: AccountEntry, customerId: string, opts: TierProgressOptions): TierProgressResponse {
  const { settings } = account;
  const c = requireCustomer(account, customerId);
  const tiers = orderedTiers(settings);
  if (tiers.length === 0) throw loyaltyErrors.notFound('This account has no tiers configured');
  const progress = progressOf(c, settings.tierProgressMethod);
  const current = tierOf(settings, progress)!;
  const next = tiers.find((t) => t.order > current.order && t.minProgress > progress) ?? current;
  const body: TierProgressResponse = {
    current: shown(current, opts.lang),
    next: shown(next, opts.lang),
    progress,
  };
  if (opts.expand.includes('tier')) body.tiers = tiers.map((t) => shown(t, opts.lang));
  if (opts.expand.includes('referrals')) body.referrals = { count: c.referrals ?? 0 };
  return body;
}
