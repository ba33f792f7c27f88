import type { Request } from 'express';
import { loyaltyErrors } from '../errors';
import type { AccountEntry, SandboxStore } from '../state/store';
import { accountOf, secretMatches } from './keys';

/**
 * One rule for every /_sandbox admin route: `apikey` names an account and
 * `secretkey` must be that account's own. Account routes act on that account;
 * sandbox-wide ones (reset, clock, faults) are open to any account's holder.
 * `withSeed` (reset only) also takes the account's secret as configured, so a
 * reset undoes a rotated secret that was then lost.
 */
export function adminAccount(store: SandboxStore, req: Request, opts: { withSeed?: boolean } = {}): AccountEntry {
  const entry = accountOf(store, req);
  const sent = req.headers.secretkey;
  if (typeof sent !== 'string' || sent === '') throw loyaltyErrors.secretKeyRequired("The admin API needs the account's apikey and secretkey headers");
  const seeded = opts.withSeed ? store.seedSecretOf(entry.settings.apiKey) : undefined;
  // Both compared, so timing does not tell which one matched.
  const current = secretMatches(sent, entry.settings.secretKey);
  const configured = seeded !== undefined && secretMatches(sent, seeded);
  if (!current && !configured) throw loyaltyErrors.secretKeyRequired('The secretkey header is not valid for the account the apikey header names');
  return entry;
}

/** An account route's path names the account; it must be the one the headers prove. */
export function adminAccountAt(store: SandboxStore, req: Request, pathApiKey: string): AccountEntry {
  const entry = adminAccount(store, req);
  if (entry.settings.apiKey !== pathApiKey) throw loyaltyErrors.apiKeyInvalid('The apikey in the path must be the account of the apikey header');
  return entry;
}
