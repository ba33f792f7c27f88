/**
 * The retry rules (./retry-rules.ts and the catalogue's `retry`) as each
 * reader gets them: README "Retrying safely", the OpenAPI document, and the
 * till client's table (clients/retry-rules.ts, data only: the client imports
 * no server code). `npm run openapi` writes all three.
 */
import { catalogueEntries, PROBLEM_CATALOGUE, type ProblemCode } from './problem-catalogue';
import { PENDING_RULE, RETRY_RULES, ROUTE_RETRY, type RetryRule } from './retry-rules';

/** The rule for `code` answered by `route` ("POST /pos/v1/payments", the document's path template). */
export function retryRuleOf(code: ProblemCode, route?: string): RetryRule {
  return (route !== undefined ? ROUTE_RETRY[route]?.[code]?.rule : undefined) ?? PROBLEM_CATALOGUE[code].retry;
}

const esc = (s: string) => s.replace(/\|/g, '\\|');

/** What each rule means, then every route whose rule differs from the error table's. */
export function retryRulesMarkdown(): string {
  return [
    '| Rule | What the till sends next |',
    '|---|---|',
    ...(Object.keys(RETRY_RULES) as RetryRule[]).map((r) => `| \`${r}\` | ${esc(RETRY_RULES[r])} |`),
    `| (202 \`pending\`) | \`${PENDING_RULE}\`: GET its Location (with \`Prefer: wait\`) until the outcome |`,
    '',
    'Routes where a code has its own rule (every other route follows the error table):',
    '',
    '| Route | Codes | Rule | Why |',
    '|---|---|---|---|',
    ...Object.entries(ROUTE_RETRY).flatMap(([route, codes]) => {
      const rows = new Map<string, { rule: RetryRule; why: string; codes: string[] }>();
      for (const [code, r] of Object.entries(codes)) {
        const row = rows.get(r.rule + r.why) ?? rows.set(r.rule + r.why, { ...r, codes: [] }).get(r.rule + r.why)!;
        row.codes.push(`\`${code}\``);
      }
      return [...rows.values()].map((r) => `| ${route} | ${r.codes.join(', ')} | \`${r.rule}\` | ${esc(r.why)} |`);
    }),
  ].join('\n');
}

export const RETRY_BLOCK_START = '<!-- retry rules: written by npm run openapi from src/platform/retry-rules.ts -->';
export const RETRY_BLOCK_END = '<!-- end of retry rules -->';

/** `readme` with its retry rules block made anew. */
export function withRetryRules(readme: string): string {
  const start = readme.indexOf(RETRY_BLOCK_START);
  const end = readme.indexOf(RETRY_BLOCK_END);
  if (start < 0 || end < start) throw new Error('README.md has no retry rules block to replace');
  return `${readme.slice(0, start)}${RETRY_BLOCK_START}\n\n${retryRulesMarkdown()}\n\n${readme.slice(end)}`;
}

/** The rules as data: each code's rule, the routes' own, and what each rule means. */
export function retryRulesData() {
  return {
    rules: RETRY_RULES,
    pending: PENDING_RULE,
    codes: Object.fromEntries(catalogueEntries().map((e) => [e.code, e.retry])) as Record<ProblemCode, RetryRule>,
    routes: Object.fromEntries(
      Object.entries(ROUTE_RETRY).map(([route, codes]) => [route, Object.fromEntries(Object.entries(codes).map(([c, r]) => [c, r.rule]))]),
    ) as Record<string, Partial<Record<ProblemCode, RetryRule>>>,
  };
}

type Doc = { paths?: Record<string, Record<string, object> | undefined> } & Record<string, unknown>;

/** The document with `x-retry-rules` (every code's rule and what each means) and, on each operation with rules of its own, `x-retry`. */
export function withRetryExtensions<D extends object>(doc: D): D {
  const data = retryRulesData();
  const out = { ...doc, 'x-retry-rules': { rules: data.rules, pending: data.pending, codes: data.codes } } as D & Doc;
  for (const [route, codes] of Object.entries(data.routes)) {
    const [method, path] = route.split(' ');
    const op = out.paths?.[path]?.[method.toLowerCase()];
    if (!op) throw new Error(`ROUTE_RETRY names ${route}, which the document does not have`);
    out.paths![path]![method.toLowerCase()] = { ...op, 'x-retry': codes };
  }
  return out;
}

const quote = (s: string) => (s.includes("'") ? JSON.stringify(s) : `'${s.replace(/\\/g, '\\\\')}'`);
const keyOf = (k: string) => (/^[A-Za-z_$][\w$]*$/.test(k) ? k : quote(k));

/** An object of strings (or of such objects) as Prettier writes it here: one property a line. */
function literal(value: Record<string, unknown>, indent = ''): string {
  const inner = indent + '  ';
  const lines = Object.entries(value).map(
    ([k, v]) => `${inner}${keyOf(k)}: ${typeof v === 'string' ? quote(v) : literal(v as Record<string, unknown>, inner)},`,
  );
  return `{\n${lines.join('\n')}\n${indent}}`;
}

/** clients/retry-rules.ts: the same rules for the till client, as data (formatted as Prettier would: the file is checked). */
export function clientRetryModule(): string {
  const data = retryRulesData();
  return [
    '// Written by `npm run openapi` from src/platform/retry-rules.ts and the error catalogue; do not edit.',
    '// What a till may send after each answer: see README "Retrying safely".',
    '',
    "export type RetryRule = 'same' | 'new' | 'read' | 'stop';",
    '',
    `export const RETRY_RULES: Record<RetryRule, string> = ${literal(data.rules)};`,
    '',
    '/** A 202 with `pending: true` is read back (its Location), never sent again. */',
    `export const PENDING_RULE: RetryRule = ${quote(data.pending)};`,
    '',
    "/** Each error code's rule on every route but those in ROUTE_RETRY. */",
    `export const CODE_RETRY: Record<string, RetryRule> = ${literal(data.codes)};`,
    '',
    '/** Routes ("POST /pos/v1/payments") where a code has a rule of its own. */',
    `export const ROUTE_RETRY: Record<string, Record<string, RetryRule>> = ${literal(data.routes)};`,
    '',
  ].join('\n');
}
