import { createHash, timingSafeEqual } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import type { KeyRequirement } from '../../contract';
import { loyaltyErrors } from '../errors';
import type { AccountEntry, SandboxStore } from '../state/store';

function header(req: Request, name: string): string | undefined {
  const v = req.headers[name];
  const s = Array.isArray(v) ? v[0] : v;
  return s === undefined || s === '' ? undefined : s;
}

/** Constant-time comparison of a sent secret with the configured one. */
export function secretMatches(sent: string, expected: string): boolean {
  const a = createHash('sha256').update(sent).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

/** The account the request's `apikey` selects, or 401/1000. */
export function accountOf(store: SandboxStore, req: Request): AccountEntry {
  const apiKey = header(req, 'apikey');
  if (!apiKey) throw loyaltyErrors.apiKeyInvalid('The apikey header is required');
  const entry = store.account(apiKey);
  if (!entry) throw loyaltyErrors.apiKeyInvalid('The apikey header does not name a known account');
  return entry;
}

/** Checks `secretkey` against the account: missing where required or wrong anywhere is 401/1001. */
export function checkSecret(entry: AccountEntry, req: Request, required: boolean): void {
  const sent = header(req, 'secretkey');
  if (sent === undefined) {
    if (required) throw loyaltyErrors.secretKeyRequired('The secretkey header is required for this operation');
    return;
  }
  if (!secretMatches(sent, entry.settings.secretKey)) throw loyaltyErrors.secretKeyRequired('The secretkey header is not valid for this account');
}

/**
 * Keys per the spec's table: `both` needs apikey and secretkey; `apikey`
 * operations need the secret too when the account's High Security Mode is on.
 * The account is left in `res.locals.account`.
 */
export function requireKeys(store: SandboxStore, keys: KeyRequirement): RequestHandler {
  return (req, res, next) => {
    const entry = accountOf(store, req);
    checkSecret(entry, req, keys === 'both' || entry.settings.highSecurityMode);
    res.locals.account = entry;
    next();
  };
}

export function accountFrom(res: Response): AccountEntry {
  const entry = res.locals.account as AccountEntry | undefined;
  if (!entry) throw new Error('requireKeys did not run before this handler');
  return entry;
}
