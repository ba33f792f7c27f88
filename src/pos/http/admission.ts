import type { ErrorRequestHandler, RequestHandler, Response } from 'express';

/*
 * Admission checks that need a Redis round trip (the terminal rate limit) are
 * started early and awaited late, together with the idempotency claim, so a
 * keyed POST waits for one round trip instead of two in a row. A request is
 * never acted on before its checks pass: the idempotency handler awaits them
 * before it replays or runs, and `awaitAdmission` before any route.
 */

const CHECKS = 'admissionChecks';

type WithChecks = { [CHECKS]?: Promise<void>[] };

/** Registers a started check; its rejection (e.g. 429) is what the request answers. */
export function deferAdmission(res: Response, check: Promise<void>): void {
  // Handled here so a refusal that nobody awaits yet is not an unhandled rejection.
  check.catch(() => undefined);
  const locals = res.locals as WithChecks;
  (locals[CHECKS] ??= []).push(check);
}

/** Resolves when every registered check passed; rejects with the first refusal. */
export async function admitted(res: Response): Promise<void> {
  const checks = (res.locals as WithChecks)[CHECKS];
  if (checks?.length) await Promise.all(checks);
}

/** Mount before the routes: a request no earlier handler awaited is admitted here. */
export const awaitAdmission: RequestHandler = async (_req, res, next) => {
  await admitted(res);
  next();
};

/**
 * Mount after the routes: a request that failed before its checks were awaited
 * (malformed JSON, say) answers the checks' refusal if there is one, so a
 * terminal over its limit always gets its 429.
 */
export const admissionBeforeErrors: ErrorRequestHandler = async (err, _req, res, next) => {
  try {
    await admitted(res);
  } catch (refusal) {
    return next(refusal);
  }
  next(err);
};
