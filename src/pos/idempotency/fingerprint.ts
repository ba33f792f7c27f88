import { createHash } from 'node:crypto';
import { RECEIPT_DEFAULT } from '../sales/receipt-query';

/** JSON with object keys sorted at every level, so key order never changes a fingerprint. */
export function canonicalJson(value: unknown): string {
  if (value === undefined) return '';
  return JSON.stringify(value, (_k, v: unknown) => {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return v;
    // fromEntries defines own properties, so a "__proto__" key in a body is kept, not swallowed.
    return Object.fromEntries(
      Object.keys(v as object)
        .sort()
        .map((k) => [k, (v as Record<string, unknown>)[k]]),
    );
  });
}

/** Query parameters at their default say nothing: `?receipt=full` is the request without it. */
const QUERY_DEFAULTS: Readonly<Record<string, string>> = { receipt: RECEIPT_DEFAULT };

function meaningfulQuery(query: Record<string, unknown>): Record<string, unknown> | undefined {
  const kept = Object.entries(query).filter(([k, v]) => !(k in QUERY_DEFAULTS && v === QUERY_DEFAULTS[k]));
  return kept.length ? Object.fromEntries(kept) : undefined;
}

/**
 * What makes two requests "the same": method, path, the parsed body, and the
 * query (it shapes the answer: `?receipt=none` answers without the receipt),
 * less parameters at their default.
 */
export function requestFingerprint(method: string, path: string, body: unknown, query: Record<string, unknown> = {}): string {
  const q = meaningfulQuery(query);
  return createHash('sha256')
    .update(`${method.toUpperCase()}\n${path}\n${canonicalJson(body)}${q ? `\n?${canonicalJson(q)}` : ''}`)
    .digest('hex');
}
