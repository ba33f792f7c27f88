import type { ErrorRequestHandler, RequestHandler, Response } from 'express';

/*
 * Admission checks that need a Redis round trip (the terminal rate limit) are
 * registered early and started late, by whoever first needs the verdict: the
 * idempotency handler starts them in the same tick as its claim, so with
 * auto-pipelining both go to Redis in one write and come back together (one
 * round trip, not two in a row). A request is never acted on before its
 * checks pass: the idempotency handler awaits them before it replays or runs,
 * `awaitAdmission` before any route, `admissionBeforeErrors` before an error
 * is answered.
 */

const CHECKS = 'admissionChecks';

interface Check {
  start: () => Promise<void>;
  started?: Promise<void>;
}

type WithChecks = { [CHECKS]?: Check[] };

/** Registers a check; its rejection (e.g. a 429) is what the request answers. */
export function deferAdmission(res: Response, start: () => Promise<void>): void {
  const locals = res.locals as WithChecks;
  (locals[CHECKS] ??= []).push({ start });
}

/**
 * Starts the checks not started yet (synchronously, so their commands join
 * whatever else this tick sends) and resolves when all passed; rejects with
 * the first refusal.
 */
export function admitted(res: Response): Promise<void> {
  const checks = (res.locals as WithChecks)[CHECKS];
  if (!checks?.length) return Promise.resolve();
  return Promise.all(checks.map((c) => (c.started ??= c.start()))).then(() => undefined);
}

/** Mount before the routes: a request no earlier handler admitted is admitted here. */
export const awaitAdmission: RequestHandler = async (_req, res, next) => {
  await admitted(res);
  next();
};

/**
 * Mount after the routes: a request that failed before it was admitted
 * (malformed JSON, say) still has its checks run and answers their refusal if
 * there is one, so a terminal over its limit always gets its 429 and every
 * request counts.
 */
export const admissionBeforeErrors: ErrorRequestHandler = async (err, _req, res, next) => {
  try {
    await admitted(res);
  } catch (refusal) {
    return next(refusal);
  }
  next(err);
};
