import { PUBLISHED_LIMITS, type LimitBucket } from '../../../src/contract';
import type { BucketLimit, BudgetRules } from '../../../src/upstream/policies';

/** Budget rules for tests: every bucket the same small figures; reserves and waits as the defaults unless given. */
export function rules(
  limit: BucketLimit,
  o: {
    windowMs?: number;
    reserves?: [secondLegReserve: number, backgroundReserve: number];
    waits?: [secondLeg: number, cashier: number, background: number];
  } = {},
): BudgetRules {
  const [cashierReserve, backgroundReserve] = o.reserves ?? [10, 30];
  const [secondLegWait, cashierWait, backgroundWait] = o.waits ?? [1000, 250, 50];
  return {
    limits: Object.fromEntries(Object.keys(PUBLISHED_LIMITS).map((b) => [b, limit])) as Record<LimitBucket, BucketLimit>,
    windowMs: o.windowMs ?? 30_000,
    priorities: {
      secondLeg: { reservePercent: 0, maxWaitMs: secondLegWait },
      cashier: { reservePercent: cashierReserve, maxWaitMs: cashierWait },
      background: { reservePercent: backgroundReserve, maxWaitMs: backgroundWait },
    },
  };
}
