import { type Operation, OPERATIONS } from './operations';

/**
 * Published v4.0 operations the sandbox serves that the BFF does not call
 * yet (none now: redeem moved into OPERATIONS when stand-in redemptions began
 * settling through it). They are kept out of OPERATIONS because the BFF's client tables
 * (src/upstream) are keyed by every OperationId; each moves into OPERATIONS
 * when the BFF starts calling it.
 */
export const SANDBOX_ONLY_OPERATIONS = {} as const satisfies Record<string, Operation>;

/** Every v4.0 operation the sandbox serves: the BFF's and the sandbox-only ones. */
export const SERVED_OPERATIONS = { ...OPERATIONS, ...SANDBOX_ONLY_OPERATIONS } as const;
export type ServedOperationId = keyof typeof SERVED_OPERATIONS;
