import type { Request } from 'express';
import { loyaltyErrors } from '../errors';
import type { AccountEntry, SandboxStore } from '../state/store';
import { accountOf, secretMatches } from './keys';

/**
 * The admin API is guarded by an account's secret key. Where an account is
 * concerned, `apikey` selects it and `secretkey` must be its own.
 */
export function adminAccount(store: SandboxStore, req: Request): AccountEntry {
  const entry = accountOf(store, req);
  requireSecretOf(entry, req);
  return entry;
}

export function requireSecretOf(entry: AccountEntry, req: Request): void {
  const sent = req.headers.secretkey;
  if (typeof sent !== 'string' || sent === '') throw loyaltyErrors.secretKeyRequired('The admin API needs the account secret key in the secretkey header');
  if (!secretMatches(sent, entry.settings.secretKey)) throw loyaltyErrors.secretKeyRequired('The secretkey header is not valid for this account');
}

/**
 * For sandbox-wide admin calls (reset, clock): the secret key of any account,
 * current or as configured (`withSeed`, so a reset undoes a rotated secret).
 */
export function requireAnySecret(store: SandboxStore, req: Request, withSeed = false): void {
  const sent = req.headers.secretkey;
  if (typeof sent !== 'string' || sent === '') throw loyaltyErrors.secretKeyRequired('The admin API needs an account secret key in the secretkey header');
  // Check every account so timing does not reveal which one matched.
  let ok = false;
  const secrets = store.all().map((e) => e.settings.secretKey);
  if (withSeed) secrets.push(...store.seedSecrets());
  for (const secret of secrets) if (secretMatches(sent, secret)) ok = true;
  if (!ok) throw loyaltyErrors.secretKeyRequired('The secretkey header is not valid for any account');
}
