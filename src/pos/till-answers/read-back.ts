import { problem } from '../../platform/problem';
import type { CallContext } from '../context';
import { ANSWER_REPLAYED, Replay } from '../stored-response';
import { pendingAnswer } from './schemas';
import type { TillAnswerStore } from './types';

/** How often a read-back waiting for its answer (`Prefer: wait`) looks again, and what it leaves before its deadline. */
const POLL_MS = 100;
/** A 202 with no outcome after this long: the instance running it stopped (a running request renews its key for 5 minutes at most). */
export const ANSWER_ABANDONED_MS = 10 * 60_000;

export interface ReadBackDeps {
  tillAnswers: TillAnswerStore;
  clock: () => number;
}

/**
 * GET /answers/{requestId}: the answer of a request this terminal was given
 * 202 for at its deadline. Reading it is the till coming back for it (a hold
 * that lands later is kept). With `Prefer: wait` it waits for the outcome up
 * to that deadline (a long poll).
 */
export async function readAnswer(deps: ReadBackDeps, ctx: CallContext, requestId: string): Promise<Replay> {
  const terminalId = ctx.identity.terminal.id;
  let found = await deps.tillAnswers.get(terminalId, requestId);
  if (!found) throw problem('answer_not_found', `No answer is kept for request ${requestId} of this terminal`);
  if (!found.response) await deps.tillAnswers.decide(terminalId, requestId, 'till');
  while (!found?.response && ctx.till && ctx.till.leftMs() > 2 * POLL_MS) {
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    found = await deps.tillAnswers.get(terminalId, requestId);
  }
  if (!found) throw problem('answer_not_found', `No answer is kept for request ${requestId} of this terminal`);
  if (found.response) return new Replay(found.response, { [ANSWER_REPLAYED]: 'true' });
  if (deps.clock() - found.createdAt > ANSWER_ABANDONED_MS) {
    throw problem(
      'answer_lost',
      'The request never finished (the instance running it stopped), so it may have been done: read the resource (e.g. GET /payments/{paymentId}); do not send the write again',
    );
  }
  const pending = pendingAnswer(requestId);
  return new Replay(
    { status: 202, contentType: 'application/json; charset=utf-8', location: pending.location, body: JSON.stringify(pending) },
    { 'Retry-After': '1' },
  );
}
