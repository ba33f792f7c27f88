import type { Logger } from 'pino';
import type { LoyaltyClient } from '../../upstream';
import type { RedemptionConfigAnswer } from '../../upstream/coupon-answers';

export interface RedemptionOption {
  /** Name it as `ruleId` in POST /redemptions. */
  ruleId: string;
  name: string;
  points: number;
  /** Money the rule is worth. */
  value: number;
  type: string;
}

export interface RedemptionOptions {
  /** Money value of one point. */
  redemptionFactor: number | null;
  rules: RedemptionOption[];
  fetchedAt: string;
}

/** What a rule takes off a sale, as the programme configures it: the totals rule prices a redemption by it. */
export interface RuleTerms {
  /** The coupon type (percentage_discount, fixed_discount, free_product, free_shipping, ...), else the rule type. */
  type: string;
  /** Percent for a percentage rule, money for a fixed one. */
  discountValue?: number;
  /** Most a percentage rule takes off. */
  capping?: number;
  /** The free product's id. */
  productId?: string;
}

interface Snapshot {
  options: RedemptionOptions;
  /** Every rule by id, switched-off ones too: a hold placed before a rule was switched off can still be paid with. */
  terms: Map<string, RuleTerms>;
  at: number;
}

function termsOf(answer: RedemptionConfigAnswer): Map<string, RuleTerms> {
  return new Map(
    answer.redemptionRules.map((r) => [
      r.id,
      {
        type: r.coupon?.couponType ?? r.ruleType ?? 'unknown',
        discountValue: r.coupon?.discountValue,
        capping: r.coupon?.options?.capping,
        productId: r.coupon?.product?.productId,
      },
    ]),
  );
}

function toOptions(answer: RedemptionConfigAnswer, now: number): RedemptionOptions {
  return {
    redemptionFactor: answer.redemptionFactor ?? null,
    rules: answer.redemptionRules
      .filter((r) => r.isActive !== false)
      .map((r) => ({
        ruleId: r.id,
        name: r.coupon?.options?.name ?? r.id,
        points: r.pointsToRedeem,
        value: r.valueOfPoint ?? 0,
        type: r.coupon?.couponType ?? r.ruleType ?? 'unknown',
      })),
    fetchedAt: new Date(now).toISOString(),
  };
}

/**
 * The account's redemption rules change rarely and every till draws them, so
 * this instance keeps one copy: served as is while younger than the TTL; once
 * older, still served while one background read refreshes it. Only the very
 * first read (or one after a failed first read) waits for the upstream.
 */
export class RedemptionOptionsCache {
  private current?: Snapshot;
  private refreshing?: Promise<Snapshot>;
  /** Upstream reads made (for tests and logs). */
  fetches = 0;

  constructor(
    private readonly loyalty: Pick<LoyaltyClient, 'redemptionConfig'>,
    private readonly ttlMs: number,
    private readonly clock: () => number,
    private readonly logger: Logger,
  ) {}

  async get(requestId?: string): Promise<RedemptionOptions> {
    return (await this.read(requestId)).options;
  }

  /** The terms of one rule by the id a redemption named it by; undefined when the programme does not list it. */
  async terms(ruleId: string, requestId?: string): Promise<RuleTerms | undefined> {
    return (await this.read(requestId)).terms.get(ruleId);
  }

  private async read(requestId?: string): Promise<Snapshot> {
    const cur = this.current;
    if (!cur) return this.refresh(requestId);
    if (this.clock() - cur.at >= this.ttlMs) {
      this.refresh(requestId).catch((err) => this.logger.warn({ err: (err as Error).message }, 'redemption options refresh failed; serving the cached ones'));
    }
    return cur;
  }

  private refresh(requestId?: string): Promise<Snapshot> {
    this.refreshing ??= (async () => {
      try {
        this.fetches += 1;
        // A refresh of options already held is work nobody waits for (no till's deadline); the first fetch has a till waiting.
        const answer = await this.loyalty.redemptionConfig(this.current ? { requestId, priority: 'background', till: null } : { requestId });
        const now = this.clock();
        this.current = { options: toOptions(answer, now), terms: termsOf(answer), at: now };
        return this.current;
      } finally {
        this.refreshing = undefined;
      }
    })();
    return this.refreshing;
  }
}
