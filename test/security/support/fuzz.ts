import fc from 'fast-check';
import { STATUS_CODES } from 'node:http';
import { corruption, hostileValue, mutate, mutation, Mutation, oddPathParam, oddQuery, POLLUTION_MARK, WRONG_CONTENT_TYPES } from './hostile';
import type { RawClient, RawRequest, RawResponse } from './raw-http';

/**
 * Property-based fuzzing of one HTTP route: a valid request, mutated. Every
 * answer must be a 4xx in the program's error shape or a success the route
 * allows; never a 5xx, never a hang-up; a refused request leaves the watched
 * balances as they were; nothing secret or internal comes back; nothing
 * lands on Object.prototype.
 */
export interface FuzzRoute {
  name: string;
  method: 'GET' | 'POST' | 'DELETE' | 'PUT';
  /** With `:param` placeholders. */
  path: string;
  /** Valid values of the path parameters. */
  params?: Record<string, string>;
  query?: string;
  /** Authentication (terminal token or loyalty keys). */
  headers: Record<string, string>;
  /** A valid body, given a unique id for this case (for payment ids and the like). Absent: a bodiless route. */
  body?: (uniq: string) => unknown;
  /** Statuses a success may have. */
  success: number[];
  /** Customers whose balance a refused request must leave alone. */
  watch?: string[];
  /** After a 2xx (e.g. put the sandbox back after an admin call changed it). */
  afterSuccess?: (res: RawResponse) => Promise<void>;
  /** Share of the program's runs (default 1). */
  weight?: number;
}

export interface FuzzTarget {
  program: 'bff' | 'sandbox';
  client: RawClient;
  bodyLimitBytes: number;
  /** A snapshot of the customers' balances, compared as text. */
  balances(customerIds: string[]): Promise<string>;
  /** Strings that must never appear in a response. */
  secrets: string[];
  /** A request that must still succeed after the route's run (the server is alive). */
  alive(): Promise<RawResponse>;
}

type BodyCase =
  | { kind: 'valid' }
  | { kind: 'mutated'; mutations: Mutation[] }
  | { kind: 'random'; value: unknown }
  | { kind: 'malformed'; corrupt: (t: string) => string }
  | { kind: 'content-type'; type: string | null }
  | { kind: 'empty'; withType: boolean }
  | { kind: 'oversize'; fill: string }
  | { kind: 'encoding'; encoding: string };

export interface FuzzCase {
  body: BodyCase;
  /** Index of the path parameter to replace, and its odd value. */
  oddParam?: { index: number; value: string };
  query?: string;
  idempotencyKey?: string;
  requestId?: string;
  uniq: string;
}

const bodyCase: fc.Arbitrary<BodyCase> = fc.oneof(
  { weight: 1, arbitrary: fc.constant<BodyCase>({ kind: 'valid' }) },
  { weight: 14, arbitrary: fc.array(mutation, { minLength: 1, maxLength: 3 }).map((mutations): BodyCase => ({ kind: 'mutated', mutations })) },
  { weight: 2, arbitrary: fc.oneof(fc.jsonValue({ maxDepth: 3 }), hostileValue).map((value): BodyCase => ({ kind: 'random', value })) },
  { weight: 2, arbitrary: corruption.map((corrupt): BodyCase => ({ kind: 'malformed', corrupt })) },
  { weight: 2, arbitrary: fc.constantFrom<string | null>(...WRONG_CONTENT_TYPES, null).map((type): BodyCase => ({ kind: 'content-type', type })) },
  { weight: 1, arbitrary: fc.boolean().map((withType): BodyCase => ({ kind: 'empty', withType })) },
  { weight: 1, arbitrary: fc.constantFrom('x', 'é', '😀').map((fill): BodyCase => ({ kind: 'oversize', fill })) },
  {
    weight: 1,
    arbitrary: fc.constantFrom('gzip', 'deflate', 'br', 'identity', 'x-unknown', 'gzip, gzip').map((encoding): BodyCase => ({ kind: 'encoding', encoding })),
  },
);

/** `arb` one time in `n`, undefined otherwise. */
function sometimes<T>(arb: fc.Arbitrary<T>, n: number): fc.Arbitrary<T | undefined> {
  return fc.oneof({ weight: n - 1, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: arb });
}

const headerText = fc.string({ unit: fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 300 });

export function fuzzCase(route: FuzzRoute): fc.Arbitrary<FuzzCase> {
  const paramCount = Object.keys(route.params ?? {}).length;
  return fc.record(
    {
      // Bodiless routes still get bodies now and then: a GET with a body is hostile too.
      body: route.body
        ? bodyCase
        : fc.oneof({ weight: 6, arbitrary: fc.constant<BodyCase>({ kind: 'empty', withType: false }) }, { weight: 1, arbitrary: bodyCase }),
      oddParam: paramCount ? sometimes(fc.record({ index: fc.nat({ max: paramCount - 1 }), value: oddPathParam }), 4) : fc.constant(undefined),
      query: sometimes(oddQuery, 8),
      idempotencyKey: sometimes(headerText, 6),
      requestId: sometimes(headerText, 8),
      uniq: fc.uuid(),
    },
    { requiredKeys: ['body', 'uniq'] },
  );
}

/** The request a case stands for. */
export function buildRequest(route: FuzzRoute, c: FuzzCase, bodyLimitBytes: number): RawRequest {
  const names = Object.keys(route.params ?? {});
  let path = route.path;
  names.forEach((name, i) => {
    const value = c.oddParam && c.oddParam.index === i ? c.oddParam.value : encodeURIComponent(route.params![name]);
    path = path.replace(`:${name}`, value);
  });
  path += c.query ?? route.query ?? '';
  const headers: Record<string, string> = { ...route.headers };
  if (c.idempotencyKey !== undefined) headers['Idempotency-Key'] = c.idempotencyKey;
  if (c.requestId !== undefined) headers['X-Request-Id'] = c.requestId;
  const valid = route.body ? route.body(c.uniq) : { customerId: 'fz-alice' };
  const json = (v: unknown) => (v === undefined ? '' : JSON.stringify(v));
  let body: string | undefined;
  const b = c.body;
  switch (b.kind) {
    case 'valid':
      body = json(valid);
      break;
    case 'mutated':
      body = json(mutate(valid, b.mutations));
      break;
    case 'random':
      body = json(b.value);
      break;
    case 'malformed':
      body = b.corrupt(json(valid));
      break;
    case 'content-type':
      body = json(valid);
      if (b.type !== null) headers['Content-Type'] = b.type;
      return { method: route.method, path, headers, body: body || 'x' };
    case 'empty':
      if (b.withType) headers['Content-Type'] = 'application/json';
      return { method: route.method, path, headers, body: b.withType ? '' : undefined };
    case 'oversize': {
      const filler = b.fill.repeat(Math.ceil((bodyLimitBytes + 1024) / Buffer.byteLength(b.fill)));
      body = JSON.stringify({ ...(valid as object), filler });
      break;
    }
    case 'encoding':
      body = json(valid);
      headers['Content-Encoding'] = b.encoding;
      break;
  }
  headers['Content-Type'] = 'application/json';
  return { method: route.method, path, headers, body };
}

const STACK_TRACE = /\bat [^\s()]+ \(?[^\s()]*:\d+:\d+\)?|node_modules|\.ts:\d+/;

/** What is wrong with one answer, or undefined when it is acceptable. */
export function problemWith(target: FuzzTarget, route: FuzzRoute, req: RawRequest, res: RawResponse): string | undefined {
  if (res.error !== undefined) return `no HTTP answer: ${res.error}`;
  if (res.status >= 500) return `answered ${res.status}`;
  if (res.status < 200 || (res.status >= 300 && res.status < 400)) return `answered ${res.status}`;
  const headers = JSON.stringify(res.headers);
  for (const secret of target.secrets) if (res.text.includes(secret) || headers.includes(secret)) return 'a secret is in the response';
  if (STACK_TRACE.test(res.text)) return 'a stack trace or source path is in the response';
  const declared = Number(req.headers?.['Content-Length'] ?? 0);
  if (declared > target.bodyLimitBytes && res.status < 400) return `a ${declared}-byte body (limit ${target.bodyLimitBytes}) was accepted`;
  if (res.status < 300) {
    if (!route.success.includes(res.status)) return `success status ${res.status} is not one of ${route.success.join(', ')}`;
    return res.json === undefined ? 'a success without a JSON body' : undefined;
  }
  const body = res.json as Record<string, unknown> | undefined;
  if (!body || typeof body !== 'object') return `a ${res.status} without a JSON error body`;
  if (target.program === 'bff') {
    if (!String(res.headers['content-type']).startsWith('application/problem+json')) return `a ${res.status} that is not application/problem+json`;
    if (typeof body.code !== 'string' || !body.code || typeof body.detail !== 'string' || body.status !== res.status)
      return `a ${res.status} problem without code/detail/status`;
    if (body.code === 'bad_request' || body.detail === STATUS_CODES[res.status]) return `a ${res.status} that does not name the problem`;
  } else {
    if (typeof body.code !== 'number' || typeof body.type !== 'string' || typeof body.message !== 'string' || typeof body.requestId !== 'string') {
      return `a ${res.status} without the v4.0 error shape {code,type,message,requestId}`;
    }
    if (body.message === STATUS_CODES[res.status]) return `a ${res.status} that does not name the problem`;
  }
  if (declared > target.bodyLimitBytes && res.status !== 413 && res.status !== 401) return `a ${declared}-byte body got ${res.status}, not 413`;
  return undefined;
}

function polluted(): boolean {
  const probe = {} as Record<string, unknown>;
  return (
    probe[POLLUTION_MARK] !== undefined ||
    ([] as unknown as Record<string, unknown>)[POLLUTION_MARK] !== undefined ||
    Object.prototype.hasOwnProperty.call(Object.prototype, POLLUTION_MARK)
  );
}

export interface FuzzTally {
  cases: number;
  statuses: Record<string, number>;
}

function describe(req: RawRequest, res: RawResponse): string {
  const body = req.body === undefined ? '(none)' : String(req.body).slice(0, 300);
  return `${req.method} ${req.path.slice(0, 200)} headers=${JSON.stringify({ ...req.headers, Authorization: undefined, apikey: undefined, secretkey: undefined })} body=${body}\n-> ${res.status} ${res.text.slice(0, 300)}`;
}

/** Runs `numRuns` cases against one route; throws (with fast-check's seed and path) on the first bad answer. */
export async function fuzzRoute(target: FuzzTarget, route: FuzzRoute, numRuns: number, tally: FuzzTally, seed?: number): Promise<void> {
  let last = route.watch?.length ? await target.balances(route.watch) : '';
  await fc.assert(
    fc.asyncProperty(fuzzCase(route), async (c) => {
      const req = buildRequest(route, c, target.bodyLimitBytes);
      const res = await target.client.send(req);
      tally.cases += 1;
      const code = (res.json as { code?: unknown } | undefined)?.code;
      const key = `${route.name} ${res.status}${res.status >= 400 ? ` ${String(typeof code === 'string' || typeof code === 'number' ? code : '')}` : ''}`;
      tally.statuses[key] = (tally.statuses[key] ?? 0) + 1;
      const problem = problemWith(target, route, req, res);
      if (problem) throw new Error(`${route.name}: ${problem}\n${describe(req, res)}`);
      if (polluted()) throw new Error(`${route.name}: Object.prototype was polluted\n${describe(req, res)}`);
      if (res.status < 300 && route.afterSuccess) await route.afterSuccess(res);
      if (route.watch?.length) {
        const now = await target.balances(route.watch);
        if (res.status >= 400 && now !== last)
          throw new Error(`${route.name}: a refused request (${res.status}) changed a balance: ${last} -> ${now}\n${describe(req, res)}`);
        last = now;
      }
    }),
    { numRuns, seed, endOnFailure: !process.env.FUZZ_SHRINK },
  );
  const alive = await target.alive();
  if (alive.status !== 200) throw new Error(`${route.name}: the server no longer answers (${alive.status} ${alive.error ?? alive.text.slice(0, 200)})`);
}

/** FUZZ_SCALE=10 runs ten times as many cases (a longer local run); FUZZ_SEED pins the seed. */
export function runsFor(base: number): number {
  return Math.max(1, Math.round(base * Number(process.env.FUZZ_SCALE ?? 1)));
}
export const FUZZ_SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : undefined;
