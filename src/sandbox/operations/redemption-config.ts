import type { RedemptionConfigResponse } from '../../contract';
import type { RedemptionRuleSettings } from '../accounts';
import type { SandboxContext } from '../context';
import { money } from '../domain/money';
import type { AccountEntry } from '../state/store';
import { numericId } from './orders';

/** The number a rule is listed under: its id when that is all digits, else a stable number derived from it. A hold accepts either. */
export function ruleNumber(rule: Pick<RedemptionRuleSettings, 'id'>): number {
  return /^[0-9]{1,12}$/.test(rule.id) ? Number(rule.id) : numericId(`rule:${rule.id}`);
}

/** A rule's money value: its fixed discount, else its points at the redemption factor (a hold by rule holds this much). */
export function ruleValue(rule: RedemptionRuleSettings, redemptionFactor: number): number {
  return money(rule.type === 'fixed_discount' && rule.value !== undefined ? rule.value : rule.pointsCost * redemptionFactor);
}

/** `GET /configurations/redemption`: the redemption factor and every rule, with what each is worth. */
export function redemptionConfig(ctx: SandboxContext, account: AccountEntry): RedemptionConfigResponse {
  const { settings } = account;
  const since = ctx.clock.iso(ctx.clock.now() - (ctx.clock.now() % 86_400_000));
  return {
    redemptionFactor: settings.redemptionFactor,
    redemptionRules: settings.redemptionRules.map((r) => ({
      id: ruleNumber(r),
      pointsToRedeem: r.pointsCost,
      valueOfPoint: ruleValue(r, settings.redemptionFactor),
      ruleType: `${r.type}_settings`,
      coupon: {
        couponType: r.type,
        discountValue: r.value ?? 0,
        ...(r.productId !== undefined ? { product: { productId: r.productId } } : {}),
        options: { name: r.name ?? r.id },
      },
      creationDate: since,
      isActive: true,
    })),
  };
}
