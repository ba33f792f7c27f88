import type { Request, RequestHandler, Response } from 'express';
import { problem } from '../../platform/problem';
import type { TerminalIdentity } from '../terminals/types';
import { storePolicy } from '../terminals/policy';

/** The till's own name for the cashier and the shift; not personal data (no names, no emails). */
export const CASHIER_HEADER = 'X-Cashier-Id';
export const SHIFT_HEADER = 'X-Shift-Id';

/** Short ids of safe characters: they go into logs, audit entries and the loyalty service's `extra`, so no spaces, "@" or control characters. */
const SAFE_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$/;
const SAFE_ID_RULE = 'must be 1-64 letters, digits, ".", "_", ":" or "-", starting with a letter or digit, sent once';

export interface CashierOnDuty {
  cashierId?: string;
  shiftId?: string;
}

/** Reads work; only what changes something needs the cashier named. */
const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

function headerValue(req: Request, name: string): string | undefined {
  const raw = req.headers[name.toLowerCase()];
  if (raw === undefined) return undefined;
  // Node joins a repeated header with ", ", which the rule refuses: two cashiers are none.
  const value = Array.isArray(raw) ? raw.join(', ') : raw;
  if (!SAFE_ID.test(value)) {
    throw problem('cashier_header_invalid', `${name} ${SAFE_ID_RULE}`, { errors: [{ path: name, message: SAFE_ID_RULE }] });
  }
  return value;
}

/**
 * Validates X-Cashier-Id and X-Shift-Id and keeps them for the request (logs,
 * audit entries, the payment's `extra`). A store whose `requireCashier` says
 * so (else CASHIER_ID_REQUIRED) refuses a till's write without them; kiosks
 * have no cashier. Mount after terminal auth.
 */
export function cashierHeaders(opts: { requiredByDefault: boolean }): RequestHandler {
  return (req, res, next) => {
    const identity = (res.locals as { identity?: TerminalIdentity }).identity;
    const onDuty: CashierOnDuty = { cashierId: headerValue(req, CASHIER_HEADER), shiftId: headerValue(req, SHIFT_HEADER) };
    if (
      identity &&
      identity.terminal.role !== 'kiosk' &&
      !READS.has(req.method) &&
      storePolicy(identity.store, { cashierRequired: opts.requiredByDefault }).cashierRequired
    ) {
      const missing = [onDuty.cashierId === undefined ? CASHIER_HEADER : '', onDuty.shiftId === undefined ? SHIFT_HEADER : ''].filter(Boolean);
      if (missing.length) {
        throw problem('cashier_required', `This store needs the cashier and shift on every write: send ${missing.join(' and ')}`, {
          errors: missing.map((path) => ({ path, message: 'required by this store' })),
        });
      }
    }
    (res.locals as { cashier?: CashierOnDuty }).cashier = onDuty;
    next();
  };
}

/** The cashier and shift of this request, as validated (none before the middleware ran). */
export function cashierOf(res: Response): CashierOnDuty {
  const c = (res.locals as { cashier?: CashierOnDuty }).cashier;
  return c ? { ...(c.cashierId ? { cashierId: c.cashierId } : {}), ...(c.shiftId ? { shiftId: c.shiftId } : {}) } : {};
}

/**
 * A payment's `extra` with the cashier and shift, where the v4.0 payment has
 * room for them (string values, as it requires). Ours win over the till's own
 * keys of the same name: the headers are what was validated.
 */
export function withCashier<E extends Record<string, string | number>>(ctx: CashierOnDuty, extra: E | undefined): E | undefined {
  const ours = { ...(ctx.cashierId ? { cashierId: ctx.cashierId } : {}), ...(ctx.shiftId ? { shiftId: ctx.shiftId } : {}) };
  return extra || Object.keys(ours).length ? ({ ...extra, ...ours } as E) : undefined;
}
