import type { RedemptionDeps } from './redemption-deps';
import type { RedemptionAsk } from './types';
import type { Store } from '../terminals/types';
import { capOf } from './cap';

/**
 * The points an ask will hold, as far as the BFF can tell before the hold
 * answers: points as asked; a rule's points and an amount's worth from the
 * account's redemption configuration (cached), read only when a cap applies.
 * 0 when it cannot tell (the hold's own answer corrects the count then).
 */
export async function pointsOfAsk(deps: Pick<RedemptionDeps, 'redemptionOptions'>, ask: RedemptionAsk, requestId?: string): Promise<number> {
  if (ask.kind === 'points') return ask.points;
  const options = await deps.redemptionOptions?.get(requestId).catch(() => undefined);
  if (!options) return 0;
  if (ask.kind === 'rule') return options.rules.find((r) => r.ruleId === ask.ruleId)?.points ?? 0;
  return options.redemptionFactor ? Math.ceil(ask.amount / options.redemptionFactor - 1e-9) : 0;
}

/** What a start counts against the cap before its hold: the ask's worth where a cap applies at the store, else the points asked (or 0). */
export async function pointsToCount(
  deps: Pick<RedemptionDeps, 'redemptionOptions' | 'settings'>,
  store: Store,
  ask: RedemptionAsk,
  requestId?: string,
): Promise<number> {
  if (capOf(deps, store) > 0) return pointsOfAsk(deps, ask, requestId);
  return ask.kind === 'points' ? ask.points : 0;
}
