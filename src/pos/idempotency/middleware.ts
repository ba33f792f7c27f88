import { randomUUID } from 'node:crypto';
import type { ErrorRequestHandler, Request, RequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import { problem } from '../../platform/problem';
import { identityOf } from '../auth';
import { admitted } from '../security/admission';
import { requestFingerprint } from './fingerprint';
import { keyOutcome } from '../money/till-outcome';
import type { BeginResult, IdempotencySlot, IdempotencyStore, StoredResponse } from './types';
import type { IdempotencyOptions } from './options';

export type { IdempotencyOptions } from './options';
import { sameKeyWhileRunning } from './same-key';

export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
export { REPLAYED_HEADER } from '../stored-response';
import { REPLAYED_HEADER } from '../stored-response';
/** 1 to 255 visible ASCII characters: no spaces, no control characters, nothing outside 0x21-0x7E. */
export const IDEMPOTENCY_KEY = /^[\x21-\x7E]{1,255}$/;
/** A request that runs longer than this stops renewing its lease (a hung handler must not hold a key forever). */
const MAX_RENEW_MS = 5 * 60_000;
const ERROR_SLOT = 'idempotencyError';
const PROVISIONAL_SLOT = 'idempotencyProvisional';
const LATE_SLOT = 'idempotencySettle';

/** The next answer sent is the 202 given at the till's deadline: not stored, the key stays running (lease renewed). */
export function markProvisional(res: Response): void {
  res.locals[PROVISIONAL_SLOT] = true;
}

/** After a provisional 202: stores the request's final answer under its key (or frees it) by the same rule as a sent one. */
export async function answeredLate(res: Response, response: StoredResponse, err: unknown): Promise<void> {
  const settle = res.locals[LATE_SLOT] as ((r: StoredResponse, e: unknown) => Promise<void>) | undefined;
  await settle?.(response, err);
}

export interface Idempotency {
  store: IdempotencyStore;
  /** After terminal auth and JSON parsing, before the routes. */
  handler: RequestHandler;
  /** After the routes: remembers the error so `keepsResponse` can look at it. */
  noteError: ErrorRequestHandler;
}

/**
 * `Idempotency-Key` on every POST: the first response is stored (scoped to
 * the terminal, bound to a fingerprint of method, path, query and body) and
 * replayed to retries; a retry while the first still runs gets 409, a
 * different request under the same key 422. The claim is one atomic store
 * call, so concurrent duplicates reach the upstream once. The response is stored before it is sent: a till that saw it
 * and retries always gets the replay.
 */
export function idempotency(opts: IdempotencyOptions): Idempotency {
  const clock = opts.clock ?? Date.now;
  const { store } = opts;

  const handler: RequestHandler = async (req, res, next) => {
    if (req.method !== 'POST') return next();
    const key = req.headers['idempotency-key'];
    if (key === undefined) return next();
    if (typeof key !== 'string' || !IDEMPOTENCY_KEY.test(key)) {
      throw problem('idempotency_key_invalid', 'Idempotency-Key must be 1 to 255 visible ASCII characters (0x21-0x7E), sent once');
    }
    const slot: IdempotencySlot = { terminalId: identityOf(res).terminal.id, key };
    const fingerprint = requestFingerprint(req.method, req.baseUrl + req.path, req.body, req.query);
    const owner = randomUUID();
    // The admission checks (rate limit) start in the same tick as the claim: one round trip for both.
    const [admission, claim] = await Promise.allSettled([admitted(res), store.begin(slot, { fingerprint, owner, now: clock(), leaseMs: opts.leaseMs })]);
    if (admission.status === 'rejected') {
      if (claim.status === 'fulfilled' && claim.value.kind === 'claimed') store.release(slot, owner).catch(() => undefined);
      throw admission.reason;
    }
    if (claim.status === 'rejected') throw claim.reason;
    const found = claim.value;
    refuseReused(found, fingerprint);
    if (found.kind === 'running') {
      const after = await sameKeyWhileRunning({ res, slot, fingerprint, owner, opts, clock });
      if (after.kind === 'running') {
        throw problem('idempotency_request_in_progress', 'A request with this Idempotency-Key is still running; retry shortly to get its answer', {
          retryAfterSeconds: 1,
        });
      }
      if (after.kind === 'pending') return;
      // Waited on: the key may have been freed and used by another request meanwhile.
      refuseReused(after, fingerprint);
      if (after.kind === 'done') return replay(res, after.response);
    }
    if (found.kind === 'done') return replay(res, found.response);
    recordResponse(req, res, slot, owner, fingerprint, opts, clock);
    next();
  };

  const noteError: ErrorRequestHandler = (err: unknown, _req, res, next) => {
    res.locals[ERROR_SLOT] = err;
    next(err);
  };

  return { store, handler, noteError };
}

/** A key found holding (or having held) another request: 422, whatever that request's state. */
function refuseReused(found: BeginResult, fingerprint: string): void {
  if (found.kind !== 'claimed' && found.fingerprint !== fingerprint) {
    throw problem(
      'idempotency_key_reused',
      'This Idempotency-Key was used for a different request (method, path, query or body); use a new key for a new request',
    );
  }
}

function replay(res: Response, stored: StoredResponse): void {
  res.status(stored.status);
  if (stored.contentType) res.setHeader('Content-Type', stored.contentType);
  if (stored.location) res.setHeader('Location', stored.location);
  res.setHeader(REPLAYED_HEADER, 'true');
  res.end(stored.body);
}

/**
 * Wraps `res.send` (which `res.json` and the error renderer end in) so the
 * finished response is stored, or the key released, before it goes out.
 * Renews the lease while the request runs.
 */
function recordResponse(
  req: Request,
  res: Response,
  slot: IdempotencySlot,
  owner: string,
  fingerprint: string,
  opts: IdempotencyOptions,
  clock: () => number,
): void {
  // Built only when there is something to say: a child logger per request costs every request.
  const log = () => ((req as { log?: Logger }).log ?? opts.logger).child({ component: 'idempotency' });
  const startedAt = Date.now();
  const renewal = setInterval(
    () => {
      if (Date.now() - startedAt > MAX_RENEW_MS) return clearInterval(renewal);
      opts.store
        .renew(slot, owner, clock(), opts.leaseMs)
        .catch((err: Error) => log().warn({ err: { message: err.message } }, 'could not renew an idempotency lease'));
    },
    Math.max(50, Math.floor(opts.leaseMs / 3)),
  );
  renewal.unref();

  let settled = false;
  /** Stores the final answer (or frees the key) by the one rule, `keyOutcome`. */
  const settle = (response: StoredResponse, err: unknown): Promise<void> => {
    settled = true;
    clearInterval(renewal);
    const outcome = keyOutcome(response.status, err);
    const saved =
      outcome === 'keep'
        ? opts.store.complete(slot, owner, fingerprint, response, clock(), opts.ttlMs)
        : outcome === 'release'
          ? opts.store.release(slot, owner)
          : Promise.resolve(true);
    return saved
      .then((ok) => {
        if (!ok) log().warn({ status: response.status }, 'idempotency lease was lost before the response was stored; a retry may run again');
      })
      .catch((e: Error) =>
        log().error({ err: { message: e.message }, status: response.status }, 'could not store the idempotent response; its key frees after the lease'),
      );
  };
  res.locals[LATE_SLOT] = settle;
  const send = res.send.bind(res);
  res.send = function sendRecorded(body?: unknown) {
    // send(object) goes through res.json, which calls send again with the JSON text.
    if (settled || (body !== null && typeof body === 'object' && !Buffer.isBuffer(body))) return send(body);
    // The 202 of a till that stopped waiting is not the key's answer: the key stays running until `answeredLate`.
    if (res.locals[PROVISIONAL_SLOT] === true) return send(body);
    const text = body === undefined || body === null ? '' : Buffer.isBuffer(body) ? body.toString('utf8') : String(body);
    const response: StoredResponse = { status: res.statusCode, body: text };
    const type = res.getHeader('Content-Type');
    const location = res.getHeader('Location');
    if (type !== undefined) response.contentType = String(type);
    if (location !== undefined) response.location = String(location);
    void settle(response, res.locals[ERROR_SLOT]).finally(() => send(body));
    return res;
  } as Response['send'];

  // A response written without send (res.end) is not replayable: free the key.
  res.once('finish', () => {
    if (res.locals[PROVISIONAL_SLOT] === true) return;
    clearInterval(renewal);
    if (!settled) {
      settled = true;
      opts.store.release(slot, owner).catch(() => undefined);
    }
  });
}
