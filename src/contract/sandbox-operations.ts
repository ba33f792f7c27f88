import { type Operation, OPERATIONS } from './operations';
import { RedeemRequest, RedeemResponse } from './redeem';
import { TrackOrderRequest, TrackOrderResponse } from './track-order';

/**
 * Published v4.0 operations the sandbox serves that the BFF does not call
 * yet. They are kept out of OPERATIONS because the BFF's client tables
 * (src/upstream) are keyed by every OperationId; each moves into OPERATIONS
 * when the BFF starts calling it.
 */
export const SANDBOX_ONLY_OPERATIONS = {
  trackOrder: {
    id: 'trackOrder',
    method: 'POST',
    path: '/orders',
    keys: 'both',
    request: TrackOrderRequest,
    response: TrackOrderResponse,
    summary: 'Track an order and award points',
    extension: true,
  },
  redeem: {
    id: 'redeem',
    method: 'POST',
    path: '/transactions/redeem',
    keys: 'both',
    request: RedeemRequest,
    response: RedeemResponse,
    summary: 'Redeem points (by amount, points or hold)',
    extension: true,
  },
} as const satisfies Record<string, Operation>;

/** Every v4.0 operation the sandbox serves: the BFF's and the sandbox-only ones. */
export const SERVED_OPERATIONS = { ...OPERATIONS, ...SANDBOX_ONLY_OPERATIONS } as const;
export type ServedOperationId = keyof typeof SERVED_OPERATIONS;
