import type { Response } from 'express';
import type { BeginResult, IdempotencySlot } from './types';
import type { IdempotencyOptions } from './options';
import { tillOf } from '../till-wait';
import { answerLocation, pendingAnswer } from '../till-answers/schemas';

/** How often a retry waiting for its first run's answer looks again. */
const POLL_MS = 100;

/**
 * A retry under a key whose first request still runs. It is the till coming
 * back for that request's answer (a hold landing late is then kept). With a
 * deadline of its own (`Prefer: wait`) it waits for the answer up to it; if
 * the first run ends and freed its key, this one claims it and runs
 * (`claimed`). At its deadline, a first run answered 202 is answered 202 again
 * with the same read-back; otherwise (and without a deadline) it stays
 * `running`: 409, as ever.
 */
export async function sameKeyWhileRunning(x: {
  res: Response;
  slot: IdempotencySlot;
  fingerprint: string;
  owner: string;
  opts: IdempotencyOptions;
  clock: () => number;
}): Promise<BeginResult | { kind: 'pending' }> {
  const { res, slot, opts } = x;
  const till = tillOf(res);
  const first = async () => {
    const requestId = await opts.answers?.byKey(slot.terminalId, slot.key);
    if (requestId !== undefined) await opts.answers?.decide(slot.terminalId, requestId, 'till');
    return requestId;
  };
  let requestId = await first();
  while (till && till.leftMs() > POLL_MS) {
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    const found = await opts.store.begin(slot, { fingerprint: x.fingerprint, owner: x.owner, now: x.clock(), leaseMs: opts.leaseMs });
    if (found.kind !== 'running') return found;
    requestId ??= await first();
  }
  if (till && requestId !== undefined) {
    res.status(202).location(answerLocation(requestId)).setHeader('Retry-After', '1');
    res.json(pendingAnswer(requestId));
    return { kind: 'pending' };
  }
  return { kind: 'running', fingerprint: x.fingerprint, expiresAt: 0 };
}
