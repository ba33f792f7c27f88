import { type Operation, OPERATIONS } from './operations';
import { RedeemRequest, RedeemResponse } from './redeem';

/**
 * Published v4.0 operations the sandbox serves that the BFF does not call
 * yet (a redemption by amount or points, for settling later). They are kept out of OPERATIONS because the BFF's client tables
 * (src/upstream) are keyed by every OperationId; each moves into OPERATIONS
 * when the BFF starts calling it.
 */
export const SANDBOX_ONLY_OPERATIONS = {
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
