/**
 * The till client: the generated types (pos-v1.d.ts) on openapi-fetch, plus
 * what every till needs and would otherwise write by hand:
 * - the terminal's bearer token on every request;
 * - an Idempotency-Key on every POST: the caller's (`params.header`), or one
 *   made here; either way `pos.keyOf(response)` gives it back, so the till can
 *   keep it with the sale and send the same request again, also after a restart;
 * - the retry rules of README "Retrying safely" (./retry-rules.ts, written from
 *   the error catalogue): `same` is sent again with the same key after
 *   Retry-After, a 202 `pending` is read back from its Location after its
 *   Retry-After (a growing pause at least), a lost answer
 *   is asked again with the same key; every other answer comes back as it is;
 * - one deadline per call (`deadlineMs`, per client or `pos.within(...)`):
 *   `Prefer: wait=<seconds left>` on every request, and no wait that would end
 *   past the deadline. When it runs out, the last answer comes back (a 202
 *   `pending` with its Location: read it back later with `pos.readBack`).
 *
 *   const pos = createPosClient({ baseUrl: 'http://bff:8080', token });
 *   const { data, error, response } = await pos.POST('/pos/v1/payments', { body: sale });
 *   pos.keyOf(response); // the Idempotency-Key the sale went with
 */
import createClient, { type Client } from 'openapi-fetch';
import type { paths } from './pos-v1';
import { CODE_RETRY, PENDING_RULE, ROUTE_RETRY, type RetryRule } from './retry-rules';

export type * from './pos-types';
export type { paths } from './pos-v1';
export { CODE_RETRY, PENDING_RULE, RETRY_RULES, ROUTE_RETRY, type RetryRule } from './retry-rules';

export const IDEMPOTENCY_KEY = 'Idempotency-Key';

type LooseHeader<H> = Omit<H, typeof IDEMPOTENCY_KEY> & { [IDEMPOTENCY_KEY]?: string };
type LooseParams<P> = P extends { header: infer H }
  ? H extends { [IDEMPOTENCY_KEY]: unknown }
    ? Omit<P, 'header'> &
        (Partial<Omit<H, typeof IDEMPOTENCY_KEY>> extends Omit<H, typeof IDEMPOTENCY_KEY> ? { header?: LooseHeader<H> } : { header: LooseHeader<H> })
    : P
  : P;
type LooseOperation<O> = O extends { parameters: infer P; responses: unknown } ? Omit<O, 'parameters'> & { parameters: LooseParams<P> } : O;

/** The cashier API as the client takes it: the Idempotency-Key is never required (the client adds one), though the server requires it on some routes. */
export type TillPaths = { [P in keyof paths]: { [M in keyof paths[P]]: LooseOperation<paths[P][M]> } };

export interface PosClientOptions {
  /** Where the BFF is, e.g. `http://bff.store.lan:8080` (paths carry their own `/pos/v1`). */
  baseUrl: string;
  /** The terminal token (shown once by the terminal CLI). */
  token: string;
  /** How long one call may take in all, its retries and read-backs included (default 6000 ms). */
  deadlineMs?: number;
  /** After no answer at all, the first wait before asking again (default 200 ms, doubling). */
  noAnswerDelayMs?: number;
  /** Makes Idempotency-Keys (default: 32 random hex characters). */
  newKey?: () => string;
  /** A fetch of your own (tests, a proxy agent); default the global one. */
  fetch?: typeof fetch;
}

/** What the client knows of an answer it returned. */
export interface AnswerFacts {
  /** The Idempotency-Key the request went with (absent on GET, PUT, DELETE). */
  idempotencyKey?: string;
  /** The retry rule for this answer (undefined for a success). */
  rule?: RetryRule;
  /** A 202 `pending`: the write is still running; read it back at `location`. */
  pending?: { requestId: string; location: string };
  /** The server replayed the first answer to this key. */
  replayed: boolean;
}

export interface PosClient extends Client<TillPaths> {
  /** The Idempotency-Key a response's request was sent with. */
  keyOf(response: Response): string | undefined;
  /** What the client knows of a response: its key, rule, and pending Location. */
  factsOf(response: Response): AnswerFacts | undefined;
  /** The same client with another deadline per call. */
  within(options: { deadlineMs: number }): PosClient;
  /**
   * Reads a pending write back (GET its Location with `Prefer: wait`) until its outcome or the deadline.
   * Given the write's `method` and `url` (e.g. 'POST', '/pos/v1/payments'), an answer's rule is the one for that write.
   */
  readBack(location: string, options?: ReadBackOptions): Promise<Response>;
}

export interface ReadBackOptions {
  deadlineMs?: number;
  /** The method of the write read back (with `url`: its answer's rule is that write's). */
  method?: string;
  /** The path (or URL) of the write read back. */
  url?: string;
}

/** No answer came before the deadline; the write may have been done. Send the same request again with `idempotencyKey`. */
export class PosNoAnswerError extends Error {
  constructor(
    readonly idempotencyKey: string | undefined,
    cause: unknown,
  ) {
    super(`No answer from the BFF before the deadline${idempotencyKey ? ` (Idempotency-Key ${idempotencyKey}: send the same request again with it)` : ''}`, {
      cause,
    });
    this.name = 'PosNoAnswerError';
  }
}

const DEFAULT_DEADLINE_MS = 6000;
/** How long past the deadline an answer is still awaited: the BFF answers at `Prefer: wait` (a 202 pending), which takes a moment to arrive. */
const ANSWER_GRACE_MS = 1000;
/** The longest `Prefer: wait` the BFF honours (it ignores a longer one and would answer at its own default). */
const MAX_PREFER_WAIT_SECONDS = 120;
/** The answer headers that say it was given before: a same-key replay, or a read-back of a kept answer. */
const REPLAYED_HEADERS = ['Idempotent-Replayed', 'Answer-Replayed'];

export function createPosClient(options: PosClientOptions): PosClient {
  return build(options, new WeakMap());
}

function build(options: PosClientOptions, facts: WeakMap<Response, AnswerFacts>): PosClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const client = createClient<TillPaths>({ baseUrl, headers: { Authorization: `Bearer ${options.token}` }, fetch: following(options, baseUrl, facts) });
  return Object.assign(client, {
    keyOf: (response: Response) => facts.get(response)?.idempotencyKey,
    factsOf: (response: Response) => facts.get(response),
    within: (o: { deadlineMs: number }) => build({ ...options, ...o }, facts),
    readBack: (location: string, o: ReadBackOptions = {}) => {
      const request = new Request(under(baseUrl, location), { headers: { Authorization: `Bearer ${options.token}` } });
      const write = o.method && o.url ? { method: o.method.toUpperCase(), url: under(baseUrl, o.url) } : undefined;
      return following({ ...options, ...o }, baseUrl, facts, write)(request);
    },
  });
}

/** `location` against the BFF: a path (the BFF's Locations are `/pos/v1/...`) keeps the base URL's own path prefix (a BFF behind `/bff`). */
function under(baseUrl: string, location: string): string {
  return location.startsWith('/') && !location.startsWith('//') ? `${baseUrl}${location}` : new URL(location, `${baseUrl}/`).href;
}

/** The API path of `url` (the base URL's path prefix taken off), as routes are named. */
function apiPath(baseUrl: string, url: string): string {
  const prefix = new URL(`${baseUrl}/`).pathname.replace(/\/$/, '');
  const path = new URL(url, 'http://till/').pathname;
  return prefix && path.startsWith(`${prefix}/`) ? path.slice(prefix.length) : path;
}

/** A signal that aborts with `signal` or after `ms`; without AbortSignal.any (older browsers) it is wired by hand. */
function abortSignal(signal: AbortSignal, ms: number): AbortSignal {
  const timeout = AbortSignal.timeout(ms);
  if (typeof AbortSignal.any === 'function') return AbortSignal.any([signal, timeout]);
  const both = new AbortController();
  for (const s of [signal, timeout]) {
    if (s.aborted) both.abort(s.reason);
    else s.addEventListener('abort', () => both.abort(s.reason), { once: true });
  }
  return both.signal;
}

/** 16 random bytes as hex; getRandomValues works where randomUUID does not (a browser page on plain HTTP). */
export function newIdempotencyKey(): string {
  return Array.from(globalThis.crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, '0')).join('');
}

/** Seconds Retry-After asks for (delta-seconds or an HTTP date), or undefined. */
export function retryAfterSeconds(header: string | null, now = Date.now()): number | undefined {
  if (header === null || header.trim() === '') return undefined;
  if (/^\d+$/.test(header.trim())) return Number(header.trim());
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}

/** The rule for `code` answered to `method` on `url` (a route's own rule, else the code's). */
export function retryRuleOf(method: string, url: string, code: string): RetryRule | undefined {
  const path = new URL(url, 'http://till/').pathname;
  for (const [route, rules] of Object.entries(ROUTE_RETRY)) {
    const [m, template] = route.split(' ');
    const pattern = new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`);
    if (m === method && pattern.test(path) && rules[code]) return rules[code];
  }
  return CODE_RETRY[code];
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason as Error);
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(timer), reject(signal.reason as Error)), { once: true });
  });

interface Pending {
  pending: true;
  requestId: string;
  location: string;
}

/** The answer's problem code or pending body, read from a copy (the caller reads the answer itself). */
async function bodyOf(response: Response): Promise<{ code?: unknown; pending?: unknown; requestId?: unknown; location?: unknown } | undefined> {
  if (!(response.headers.get('Content-Type') ?? '').includes('json')) return undefined;
  return (await response
    .clone()
    .json()
    .catch(() => undefined)) as { code?: unknown } | undefined;
}

function pendingOf(response: Response, body: Awaited<ReturnType<typeof bodyOf>>): Pending | undefined {
  if (response.status !== 202 || body?.pending !== true) return undefined;
  const location = response.headers.get('Location') ?? (typeof body.location === 'string' ? body.location : undefined);
  return location ? { pending: true, requestId: String(body.requestId ?? ''), location } : undefined;
}

/** Sends `input` and follows the retry rules; `readOf` is the write a read-back is for (its rules apply), when known. */
function following(
  options: PosClientOptions,
  baseUrl: string,
  facts: WeakMap<Response, AnswerFacts>,
  readOf?: { method: string; url: string },
): (input: Request) => Promise<Response> {
  const send = options.fetch ?? globalThis.fetch;
  const deadlineMs = options.deadlineMs ?? DEFAULT_DEADLINE_MS;
  const noAnswerDelay = options.noAnswerDelayMs ?? 200;
  const newKey = options.newKey ?? newIdempotencyKey;
  return async (input: Request) => {
    const deadline = Date.now() + deadlineMs;
    const left = () => deadline - Date.now();
    const write = input.method === 'POST' && !input.headers.has(IDEMPOTENCY_KEY) ? withHeader(input, IDEMPOTENCY_KEY, newKey()) : input;
    const key = write.headers.get(IDEMPOTENCY_KEY) ?? undefined;
    // Whose rules an answer follows: the write's (a read-back given the write it is for takes that write's).
    const ruled = readOf ?? { method: write.method, url: write.url };
    const route = { method: ruled.method, path: apiPath(baseUrl, ruled.url) };
    // The write, or the read-back of its pending answer.
    let request = write;
    let again = 0;
    for (let noAnswers = 0; ;) {
      // `Prefer: wait` asks the BFF to answer within what is left (a write still running then is answered 202 pending).
      const attempt = withHeader(request, 'Prefer', `wait=${Math.min(MAX_PREFER_WAIT_SECONDS, Math.max(1, Math.floor(left() / 1000)))}`);
      const signal = abortSignal(request.signal, Math.max(1, left() + ANSWER_GRACE_MS));
      let response: Response;
      try {
        response = await send(new Request(attempt, { signal }));
      } catch (err) {
        // No answer: the request may or may not have run; the same key makes asking again safe.
        const wait = noAnswerDelay * 2 ** noAnswers++;
        if (request.signal.aborted || wait >= left()) throw new PosNoAnswerError(key, err);
        await sleep(wait, request.signal);
        continue;
      }
      const body = await bodyOf(response);
      const pending = pendingOf(response, body);
      const replayed = REPLAYED_HEADERS.some((h) => response.headers.get(h) === 'true');
      const rule = pending ? PENDING_RULE : typeof body?.code === 'string' ? retryRuleOf(route.method, route.path, body.code) : undefined;
      facts.set(response, { idempotencyKey: key, rule, pending: pending && { requestId: pending.requestId, location: pending.location }, replayed });
      let next: Request | undefined;
      if (pending) {
        // Read back, never sent again: the answer's Location gives the write's outcome once it has one.
        next = new Request(under(baseUrl, pending.location), { headers: { Authorization: request.headers.get('Authorization') ?? '' } });
      } else if (rule === 'same' && !replayed) {
        // A replayed answer is final for its key: sending it again would replay it again.
        next = write;
      }
      // At least what Retry-After asks and a growing pause: never a tight loop, also on `Retry-After: 0` or none.
      const asked = retryAfterSeconds(response.headers.get('Retry-After'));
      const wait = next ? Math.max((asked ?? 0) * 1000, noAnswerDelay * 2 ** again++) : 0;
      if (!next || wait >= left()) return response;
      await response.body?.cancel();
      await sleep(wait, request.signal);
      request = next;
      noAnswers = 0;
    }
  };
}

/** A copy of `request` with one header set (a copy: the body of a request used to build another is used up). */
function withHeader(request: Request, name: string, value: string): Request {
  const headers = new Headers(request.headers);
  headers.set(name, value);
  return new Request(request.clone(), { headers });
}
