import { lapses } from './record';
import type { Redemption } from './types';

/** A redemption as a till shows it: state, points, money, and seconds left. */
export function redemptionView(r: Redemption, now: number) {
  const secondsLeft = lapses(r) && r.expiresAt !== undefined ? Math.max(0, Math.floor((r.expiresAt - now) / 1000)) : 0;
  return {
    id: r.id,
    state: r.state,
    customerId: r.customerId,
    ask: r.ask,
    points: r.holdPoints ?? null,
    amount: r.holdAmount ?? null,
    expiresAt: r.expiresAt !== undefined ? new Date(r.expiresAt).toISOString() : null,
    secondsLeft,
    paymentId: r.paymentId ?? null,
    createdAt: new Date(r.createdAt).toISOString(),
    updatedAt: new Date(r.updatedAt).toISOString(),
    ...(r.standIn
      ? {
          standIn: {
            points: r.standIn.points,
            lastKnownBalance: r.standIn.lastKnownBalance,
            cashierMessage: `STAND-IN: ${r.standIn.points} points, redeemed when the loyalty service is back. Print as a stand-in.`,
          },
        }
      : {}),
  };
}
export type RedemptionView = ReturnType<typeof redemptionView>;
