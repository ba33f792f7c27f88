import { createHmac } from 'node:crypto';

/** What every pseudonym starts with, so a reader of the trail or a record tells one from a customer id at a glance. */
export const PSEUDONYM_PREFIX = 'erased-';

/**
 * A customer's stable pseudonym: HMAC-SHA256 of the id under the fleet's
 * pseudonym key, 24 hex characters (96 bits). The same id always gets the
 * same pseudonym, so an erased customer's entries still link to each other
 * (one customer's sales, holds and refunds in the trail and in reconciliation),
 * yet the id cannot be read back from it without the key.
 */
export function customerPseudonym(key: string, customerId: string): string {
  return PSEUDONYM_PREFIX + createHmac('sha256', key).update(customerId, 'utf8').digest('hex').slice(0, 24);
}

/**
 * The key pseudonyms are made with: CUSTOMER_PSEUDONYM_KEY, or else one derived
 * from the loyalty secret key the instance started with (every deployment has
 * it, the fleet shares it, and it is never written to Redis or a log). The
 * derived key changes when that secret changes, so a deployment that rotates
 * its loyalty keys sets CUSTOMER_PSEUDONYM_KEY (docs/operator/privacy.md).
 */
export function pseudonymKey(settingKey: string | undefined, loyaltySecretKey: string): string {
  return settingKey ?? createHmac('sha256', loyaltySecretKey).update('pos-bff customer pseudonyms', 'utf8').digest('hex');
}

/** Properties that carry a customer's contact details or name; dropped from anything erasure keeps. */
const PERSONAL = new Set(['email', 'mobile', 'phone', 'displayName', 'firstName', 'lastName', 'hash']);

/**
 * A copy of a JSON value with the customer's id replaced by the pseudonym
 * wherever a `customerId` property holds it (at any depth: a batch's orders),
 * `customer:<id>` order keys likewise, and the properties that carry contact
 * details, names or the customer's hash removed. Only those properties: an id
 * that happens to equal another field (a store or payment id) is left alone.
 */
export function scrubbed<T>(value: T, customerId: string, pseudonym: string): T {
  const walk = (v: unknown, key?: string): unknown => {
    if (typeof v === 'string') {
      if (key === 'customerId' && v === customerId) return pseudonym;
      return key === 'orderKey' && v === `customer:${customerId}` ? `customer:${pseudonym}` : v;
    }
    if (Array.isArray(v)) return v.map((x) => walk(x, key));
    if (v && typeof v === 'object')
      return Object.fromEntries(
        Object.entries(v)
          .filter(([k]) => !PERSONAL.has(k))
          .map(([k, x]) => [k, walk(x, k)]),
      );
    return v;
  };
  return walk(value) as T;
}

/** Whether a JSON value names the customer: a string equal to the id (or `customer:<id>`), at any depth. */
export function namesCustomer(value: unknown, customerId: string): boolean {
  if (typeof value === 'string') return value === customerId || value === `customer:${customerId}`;
  if (Array.isArray(value)) return value.some((v) => namesCustomer(v, customerId));
  if (value && typeof value === 'object') return Object.values(value).some((v) => namesCustomer(v, customerId));
  return false;
}

/** Whether a stored answer (JSON body, or its Location) names the customer; a body that is not JSON is searched as text. */
export function answerNames(answer: { body: string; location?: string }, customerId: string): boolean {
  if (answer.location?.split('/').some((part) => part === customerId || part === encodeURIComponent(customerId))) return true;
  try {
    return namesCustomer(JSON.parse(answer.body), customerId);
  } catch {
    return answer.body.includes(customerId);
  }
}
