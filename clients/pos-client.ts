/**
 * A thin client for tills: the generated types (pos-v1.d.ts) on openapi-fetch,
 * plus what every till needs and would otherwise write by hand:
 * - the terminal's bearer token on every request;
 * - an Idempotency-Key on every POST (one given in `params.header` is kept),
 *   the same key on each retry of that call, so a retry after a lost answer
 *   gets the first answer instead of doing it twice;
 * - retries, bounded: after no answer at all, and after 429, 503 or
 *   `idempotency_request_in_progress` (409) that say how long to wait
 *   (Retry-After), if that is no longer than `maxWaitSeconds`.
 * Anything else comes back as the BFF answered it: `{ data }` or `{ error }`
 * (a Problem with a stable `code`), and `response` for headers and status.
 *
 *   const pos = createPosClient({ baseUrl: 'http://bff:8080', token });
 *   const { data, error } = await pos.POST('/pos/v1/payments', { body: sale });
 */
import createClient, { type Client } from 'openapi-fetch';
import type { paths } from './pos-v1';

export type * from './pos-types';
export type { paths } from './pos-v1';

export interface PosClientOptions {
  /** Where the BFF is, e.g. `http://bff.store.lan:8080` (paths carry their own `/pos/v1`). */
  baseUrl: string;
  /** The terminal token (shown once by the terminal CLI). */
  token: string;
  /** Tries of one call in all, the first included (default 4). */
  attempts?: number;
  /** The longest Retry-After waited for; a longer one is answered to the caller (default 5 s). */
  maxWaitSeconds?: number;
  /** Wait after a call that got no answer, before its next try (default 500 ms, doubling). */
  noAnswerDelayMs?: number;
  /** Makes Idempotency-Keys (default: 32 random hex characters). */
  newKey?: () => string;
  /** A fetch of your own (tests, a proxy agent); default the global one. */
  fetch?: typeof fetch;
}

export type PosClient = Client<paths>;

export function createPosClient(options: PosClientOptions): PosClient {
  return createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    headers: { Authorization: `Bearer ${options.token}` },
    fetch: retrying(options),
  });
}

export const IDEMPOTENCY_KEY = 'Idempotency-Key';

/** 16 random bytes as hex; getRandomValues works where randomUUID does not (a browser page on plain HTTP). */
export function newIdempotencyKey(): string {
  return Array.from(globalThis.crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, '0')).join('');
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason as Error);
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(timer), reject(signal.reason as Error)), { once: true });
  });

/** Seconds Retry-After asks for (delta-seconds or an HTTP date), or undefined. */
export function retryAfterSeconds(header: string | null, now = Date.now()): number | undefined {
  if (header === null || header.trim() === '') return undefined;
  if (/^\d+$/.test(header.trim())) return Number(header.trim());
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}

/**
 * Whether an answer asks for the same request again, and after how long. A
 * replayed answer is the first attempt's: sending it again would replay it again.
 */
async function waitBeforeRetry(response: Response): Promise<number | undefined> {
  if (response.headers.get('Idempotent-Replayed') === 'true') return undefined;
  const wait = retryAfterSeconds(response.headers.get('Retry-After'));
  if (wait === undefined) return undefined;
  if (response.status === 429 || response.status === 503) return wait;
  if (response.status !== 409) return undefined;
  // Other 409s with Retry-After (an OTP still out for another redemption) are stored answers, not "still running".
  const body = (await response
    .clone()
    .json()
    .catch(() => undefined)) as { code?: unknown } | undefined;
  return body?.code === 'idempotency_request_in_progress' ? wait : undefined;
}

function retrying(options: PosClientOptions): (input: Request) => Promise<Response> {
  const send = options.fetch ?? globalThis.fetch;
  const attempts = Math.max(1, options.attempts ?? 4);
  const maxWait = options.maxWaitSeconds ?? 5;
  const noAnswerDelay = options.noAnswerDelayMs ?? 500;
  const newKey = options.newKey ?? newIdempotencyKey;
  return async (input: Request) => {
    let request = input;
    if (request.method === 'POST' && !request.headers.has(IDEMPOTENCY_KEY)) {
      const headers = new Headers(request.headers);
      headers.set(IDEMPOTENCY_KEY, newKey());
      request = new Request(request, { headers });
    }
    for (let attempt = 1; ; attempt++) {
      const last = attempt >= attempts;
      let response: Response;
      try {
        // A clone per try: the body of the one sent is used up.
        response = await send(request.clone());
      } catch (err) {
        // No answer: the call may or may not have run; the same key makes the next try safe.
        if (last || request.signal.aborted) throw err;
        await sleep(noAnswerDelay * 2 ** (attempt - 1), request.signal);
        continue;
      }
      const wait = last ? undefined : await waitBeforeRetry(response);
      if (wait === undefined || wait > maxWait) return response;
      await response.body?.cancel();
      await sleep(wait * 1000, request.signal);
    }
  };
}
