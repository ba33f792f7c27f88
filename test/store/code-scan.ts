import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/**
 * Every problem `code` the BFF's source can answer, found by reading the
 * source: codes handed to the error classes, the authentication refusals, the
 * refusal codes of the payment claim, and the HTTP server's own answers.
 * The sandbox (its own error shape) and the terminals CLI (no HTTP) are left out.
 */
const STATUS_OF_CLASS: Record<string, number> = {
  BadRequestError: 400, AuthenticationError: 401, NotAllowedError: 403, NotFoundError: 404, ConflictError: 409,
  PayloadTooLargeError: 413, UnsupportedMediaTypeError: 415, UnprocessableError: 422, HeaderFieldsTooLargeError: 431,
  RateLimitedError: 429, InternalError: 500, UpstreamError: 502, ServiceUnavailableError: 503, UpstreamTimeoutError: 504,
};
const ROOTS = ['src/pos', 'src/platform', 'src/upstream'];
const LEFT_OUT = ['src/pos/terminals', 'src/pos/openapi', 'src/platform/problem-catalogue.ts'];

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = path.join(dir, name);
    if (LEFT_OUT.some((x) => p.startsWith(x))) return [];
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') ? [p] : [];
  });
}

export interface Found {
  code: string;
  /** Statuses it is thrown with (by error class), where the source says. */
  statuses: Set<number>;
  where: Set<string>;
}

export function scanCodes(): Map<string, Found> {
  const found = new Map<string, Found>();
  const add = (code: string, file: string, status?: number) => {
    const f = found.get(code) ?? { code, statuses: new Set<number>(), where: new Set<string>() };
    if (status) f.statuses.add(status);
    f.where.add(file);
    found.set(code, f);
  };
  for (const file of ROOTS.flatMap(files)) {
    const src = readFileSync(file, 'utf8');
    for (const m of src.matchAll(/new (\w+Error)\(\s*'([a-z][a-z0-9_]+)'/g)) add(m[2], file, STATUS_OF_CLASS[m[1]]);
    // Built from the catalogue, so its status is the catalogue's.
    for (const m of src.matchAll(/\bproblem\(\s*'([a-z][a-z0-9_]+)'/g)) add(m[1], file);
    // A code kept in a constant (`const RETRY_SAME_REQUEST = 'retry_same_request'`) and thrown by its name.
    for (const m of src.matchAll(/const ([A-Z][A-Z0-9_]+) = '([a-z][a-z0-9_]+)';/g)) {
      for (const t of src.matchAll(new RegExp(`new (\\w+Error)\\(\\s*${m[1]}\\b`, 'g'))) add(m[2], file, STATUS_OF_CLASS[t[1]]);
      if (new RegExp(`\\bproblem\\(\\s*${m[1]}\\b`).test(src)) add(m[2], file);
    }
    // Refusal tables (`[/expired/i, 'coupon_expired', '...']`) whose matching row is thrown as `new UnprocessableError(hit[1], ...)`.
    if (/(new UnprocessableError|problem)\(hit\[1\]/.test(src)) for (const m of src.matchAll(/\[\/[^\n]*?\/[a-z]*, '([a-z][a-z0-9_]+)', /g)) add(m[1], file, 422);
    // Authentication refusals are objects with a code, thrown as 401 in one place.
    if (file.includes('src/pos/auth')) for (const m of src.matchAll(/\bcode: '([a-z][a-z0-9_]+)'/g)) add(m[1], file, 401);
    // The payment claim refuses with "code:detail" strings, thrown as 409.
    for (const m of src.matchAll(/return `([a-z]+_[a-z_]+):/g)) add(m[1], file, 409);
    // The HTTP server's answers to requests it could not parse.
    for (const m of src.matchAll(/const code = ([^;]+);/g)) for (const l of m[1].matchAll(/'([a-z][a-z0-9_]+)'/g)) add(l[1], file);
  }
  return found;
}
