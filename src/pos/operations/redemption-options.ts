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
  private current?: { options: RedemptionOptions; at: number };
  private refreshing?: Promise<RedemptionOptions>;
  /** Upstream reads made (for tests and logs). */
  fetches = 0;

  constructor(
    private readonly loyalty: Pick<LoyaltyClient, 'redemptionConfig'>,
    private readonly ttlMs: number,
    private readonly clock: () => number,
    private readonly logger: Logger,
  ) {}

  async get(requestId?: string): Promise<RedemptionOptions> {
    const cur = this.current;
    if (!cur) return this.refresh(requestId);
    if (this.clock() - cur.at >= this.ttlMs) {
      this.refresh(requestId).catch((err) => this.logger.warn({ err: (err as Error).message }, 'redemption options refresh failed; serving the cached ones'));
    }
    return cur.options;
  }

  private refresh(requestId?: string): Promise<RedemptionOptions> {
    this.refreshing ??= (async () => {
      try {
        this.fetches += 1;
        const answer = await this.loyalty.redemptionConfig({ requestId });
        const now = this.clock();
        this.current = { options: toOptions(answer, now), at: now };
        return this.current.options;
      } finally {
        this.refreshing = undefined;
      }
    })();
    return this.refreshing;
  }
}
