import { readFileSync } from 'node:fs';
import { CODE_RETRY, PENDING_RULE, RETRY_RULES, ROUTE_RETRY } from '../../clients/retry-rules';
import { PROBLEM_CATALOGUE, type ProblemCode } from '../../src/platform/problem-catalogue';
import { RETRY_RULES as SOURCE_RULES, PENDING_RULE as SOURCE_PENDING } from '../../src/platform/retry-rules';
import { retryRuleOf } from '../../src/platform/retry-table';
import { openApiPath } from '../../src/platform/openapi';
import { POS_API_PREFIX } from '../../src/pos/api-prefix';
import { codesOf } from '../../src/pos/openapi/codes';
import { POS_ROUTES } from '../../src/pos/routes';
import { ROUTE_RETRY as SOURCE_ROUTE_RETRY } from '../../src/platform/retry-rules';

/**
 * One retry rule per route and code, read from each place a till developer
 * may read it: the catalogue (the source), README (the Errors table's Retry
 * column and "Retrying safely"), the committed OpenAPI document, and the till
 * client's table. Each is turned into "route code -> rule" for every operation
 * of the document and every code, and any two must be the same.
 */
type Rules = { meanings: Record<string, string>; pending: string; rule: Map<string, string> };

const doc = JSON.parse(readFileSync('openapi/pos-v1.json', 'utf8')) as {
  paths: Record<string, Record<string, { 'x-retry'?: Record<string, string> }>>;
  'x-retry-rules': { rules: Record<string, string>; pending: string; codes: Record<string, string> };
};
const ROUTES = Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`));
const CODES = Object.keys(PROBLEM_CATALOGUE) as ProblemCode[];

/** Every route and code, from a default per code and the routes' own. */
function expand(codes: Record<string, string>, routes: Record<string, Record<string, string>>): Map<string, string> {
  const out = new Map<string, string>();
  for (const route of ['*', ...ROUTES]) for (const code of CODES) out.set(`${route} ${code}`, (route !== '*' && routes[route]?.[code]) || codes[code]);
  // A route the document does not have, or a code the catalogue does not, is a disagreement too.
  for (const [route, own] of Object.entries(routes)) for (const [code, rule] of Object.entries(own)) out.set(`${route} ${code}`, rule);
  for (const [code, rule] of Object.entries(codes)) out.set(`* ${code}`, rule);
  return out;
}

function fromSource(): Rules {
  const rule = new Map<string, string>();
  for (const code of CODES) {
    rule.set(`* ${code}`, PROBLEM_CATALOGUE[code].retry);
    for (const route of ROUTES) rule.set(`${route} ${code}`, retryRuleOf(code, route));
  }
  return { meanings: SOURCE_RULES, pending: SOURCE_PENDING, rule };
}

const cells = (row: string) =>
  row
    .split(/(?<!\\)\|/)
    .slice(1, -1)
    .map((c) => c.trim());
const unquote = (s: string) => s.replace(/^`|`$/g, '');

function fromReadme(readme = readFileSync('docs/till-developer.md', 'utf8')): Rules {
  const lines = readme.split('\n');
  const codes: Record<string, string> = {};
  const header = lines.findIndex((l) => l.startsWith('| Code | Status | Retry |'));
  for (let i = header + 2; i > 1 && lines[i]?.startsWith('|'); i++) {
    const [code, , retry] = cells(lines[i]);
    codes[unquote(code)] = /^`(\w+)`/.exec(retry)?.[1] ?? retry;
  }
  const section = readme.slice(readme.indexOf('### Retrying safely'), readme.indexOf('### Errors'));
  const meanings: Record<string, string> = {};
  const routes: Record<string, Record<string, string>> = {};
  let pending = '';
  for (const line of section.split('\n').filter((l) => l.startsWith('| ') && !l.startsWith('| Rule') && !l.startsWith('| Route'))) {
    const c = cells(line);
    if (c.length === 2 && c[0].startsWith('(202')) pending = /^`(\w+)`/.exec(c[1])?.[1] ?? c[1];
    else if (c.length === 2) meanings[unquote(c[0])] = c[1].replace(/\\\|/g, '|');
    else for (const code of c[1].split(', ')) (routes[c[0]] ??= {})[unquote(code)] = unquote(c[2]);
  }
  return { meanings, pending, rule: expand(codes, routes) };
}

function fromDocument(): Rules {
  const routes: Record<string, Record<string, string>> = {};
  for (const [path, ops] of Object.entries(doc.paths))
    for (const [m, op] of Object.entries(ops)) if (op['x-retry']) routes[`${m.toUpperCase()} ${path}`] = op['x-retry'];
  const x = doc['x-retry-rules'];
  return { meanings: x.rules, pending: x.pending, rule: expand(x.codes, routes) };
}

function fromClient(): Rules {
  return { meanings: RETRY_RULES, pending: PENDING_RULE, rule: expand(CODE_RETRY, ROUTE_RETRY) };
}

/** What `b` says otherwise than `a`, as "route code: a vs b". */
function disagreements(a: Rules, b: Rules): string[] {
  const keys = new Set([...a.rule.keys(), ...b.rule.keys()]);
  const out = [...keys].filter((k) => a.rule.get(k) !== b.rule.get(k)).map((k) => `${k}: ${a.rule.get(k)} vs ${b.rule.get(k)}`);
  for (const r of new Set([...Object.keys(a.meanings), ...Object.keys(b.meanings)]))
    if (a.meanings[r] !== b.meanings[r]) out.push(`rule ${r} means: ${a.meanings[r]} vs ${b.meanings[r]}`);
  if (a.pending !== b.pending) out.push(`pending: ${a.pending} vs ${b.pending}`);
  return out;
}

describe('one retry rule per route and code, wherever it is written', () => {
  const copies = { catalogue: fromSource(), README: fromReadme(), 'OpenAPI document': fromDocument(), 'client table': fromClient() };

  it('reads a rule for every code on every route of the document from each copy', () => {
    for (const rules of Object.values(copies)) {
      expect(rules.rule.size).toBe((ROUTES.length + 1) * CODES.length);
      expect(new Set(rules.rule.values())).toEqual(new Set(['same', 'new', 'read', 'stop']));
    }
  });

  it.each(
    Object.keys(copies).flatMap((a, i) =>
      Object.keys(copies)
        .slice(i + 1)
        .map((b) => [a, b]),
    ),
  )('%s and %s agree', (a, b) => {
    expect(disagreements(copies[a as keyof typeof copies], copies[b as keyof typeof copies])).toEqual([]);
  });

  it('finds a README that says otherwise (the check can fail)', () => {
    const readme = readFileSync('docs/till-developer.md', 'utf8').replace(/(\| POST \/pos\/v1\/redemptions \| [^|]+ \| )`stop`/, '$1`new`');
    expect(disagreements(copies.catalogue, fromReadme(readme))).toContain('POST /pos/v1/redemptions upstream_timeout: stop vs new');
  });

  it('never lets an unknown outcome of POST /redemptions or /coupon-locks lead to a new key', () => {
    for (const route of ['POST /pos/v1/redemptions', 'POST /pos/v1/coupon-locks'])
      for (const code of CODES.filter((c) => PROBLEM_CATALOGUE[c].status >= 500)) expect([route, code, retryRuleOf(code, route)]).not.toContain('new');
  });
});

describe("each catalogue row's words for the till agree with its rule", () => {
  /** The words that send the till back with the same key: right for a `same` row only. */
  const SENDS_AGAIN = /same Idempotency-Key|retry the same request|try again/i;
  const wordsAgainstRule = (catalogue: Record<string, { retry: string; tillDoes: string }>) =>
    Object.entries(catalogue)
      .filter(([, row]) => SENDS_AGAIN.test(row.tillDoes) !== (row.retry === 'same'))
      .map(([code, row]) => `${code} (${row.retry}): ${row.tillDoes}`);

  it('tells the till to send the same request again with the same key exactly on the `same` rows', () => {
    expect(wordsAgainstRule(PROBLEM_CATALOGUE)).toEqual([]);
  });

  it('finds a row that says otherwise (the check can fail)', () => {
    const bent = { ...PROBLEM_CATALOGUE, answer_lost: { ...PROBLEM_CATALOGUE.answer_lost, tillDoes: 'Retry the same request with the same Idempotency-Key' } };
    expect(wordsAgainstRule(bent)).toEqual([expect.stringMatching(/^answer_lost \(read\)/)]);
  });
});

describe("a route's own retry rules are for codes it can answer", () => {
  const answerable = new Map(POS_ROUTES.map((r) => [`${r.method.toUpperCase()} ${POS_API_PREFIX}${openApiPath(r.path)}`, codesOf(r)]));
  /** Each override a till could never be given: its route does not exist, or never answers its code. */
  const dead = (overrides: Record<string, Partial<Record<string, unknown>>>) =>
    Object.entries(overrides).flatMap(([route, codes]) =>
      Object.keys(codes)
        .filter((code) => !answerable.get(route)?.has(code as ProblemCode))
        .map((code) => `${route} ${code}`),
    );

  it('has no override row that cannot happen', () => {
    expect(dead(SOURCE_ROUTE_RETRY)).toEqual([]);
  });

  it('finds one that cannot (the check can fail)', () => {
    expect(dead({ ...SOURCE_ROUTE_RETRY, 'GET /pos/v1/outbox/dead': { upstream_timeout: {} } })).toEqual(['GET /pos/v1/outbox/dead upstream_timeout']);
  });
});
