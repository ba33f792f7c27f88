import type { Response } from 'express';
import type { TillWait } from '../upstream';

/** Says which `Prefer: wait` was honoured (RFC 7240). */
export const PREFERENCE_APPLIED = 'Preference-Applied';

/** Where a request keeps how long its till waits (set by the deadline middleware, http/till-deadline.ts). */
const SLOT = 'tillWait';

export function setTillOf(res: Response, till: TillWait): void {
  res.locals[SLOT] = till;
}

/** This request's deadline, if its till gave one. */
export function tillOf(res: Response): TillWait | undefined {
  return res.locals[SLOT] as TillWait | undefined;
}
