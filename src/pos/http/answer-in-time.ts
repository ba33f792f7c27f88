import { randomUUID } from 'node:crypto';
import type { Request, Response } from 'express';
import type { Logger } from 'pino';
import { toAppError } from '../../platform/http';
import { tillDeadlineReached, withTill, type TillWait } from '../../upstream';
import { identityOf } from '../auth';
import { answeredLate, markProvisional } from '../idempotency/middleware';
import type { StoredResponse } from '../idempotency/types';
import { answerLocation, pendingAnswer } from '../till-answers/schemas';
import type { TillAnswerStore } from '../till-answers/types';
import { problemAnswer } from './problem';
import { traceProblem } from './problem-trace';

export interface InTimeOptions {
  answers: TillAnswerStore;
  /** How long a read-back is kept (as idempotency records). */
  ttlMs: number;
  logger: Logger;
}

/**
 * The till's deadline (`Prefer: wait`, or its store's default) for one
 * request, the one place it is raced. The handler runs with the deadline as
 * its calls' bound (../../upstream/till.ts); whatever comes first decides:
 * - the handler: its answer, as without a deadline (`write`, or its error thrown);
 * - the deadline, a write sent or maybe sent: 202 with where to read the
 *   outcome; the handler runs on and its answer (`late` renders it, or its
 *   error) is kept for the read-back and under the Idempotency-Key;
 * - the deadline, nothing sent: `till_deadline_reached` (nothing was done),
 *   and the handler may send nothing from then on.
 */
export async function answerInTime<V>(
  req: Request,
  res: Response,
  till: TillWait,
  handle: () => Promise<V>,
  write: (view: V) => void,
  late: (view: V) => StoredResponse,
  opts: InTimeOptions,
): Promise<void> {
  const running = withTill(till, handle);
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<'deadline'>((resolve) => {
    timer = setTimeout(() => resolve('deadline'), Math.max(0, till.leftMs()));
  });
  const first = await Promise.race([running.then(settledFirst, settledFirst), deadline]);
  clearTimeout(timer);
  if (first === 'handler') {
    till.phase = 'answered';
    return write(await running);
  }
  const log = (req as { log?: Logger }).log ?? opts.logger;
  if (!till.writeSent) {
    till.phase = 'refused';
    const refusal = tillDeadlineReached();
    // The Idempotency-Key stays claimed until the refused handler has unwound (freed its claims): a same-key retry
    // waits for it or gets 409, never finds those claims as its own while this run still holds them.
    markProvisional(res);
    const { status, body } = problemAnswer(toAppError(refusal), String((req as { id?: unknown }).id));
    const refused: StoredResponse = { status, contentType: 'application/problem+json; charset=utf-8', body: JSON.stringify(body) };
    void running
      .then(
        () => log.debug('a request refused at its deadline ended'),
        (err: unknown) => log.debug({ code: toAppError(err).code }, 'a request refused at its deadline ended'),
      )
      .finally(() => answeredLate(res, refused, refusal));
    throw refusal;
  }
  till.phase = 'pending';
  await answerPending(req, res, till, running, late, opts, log);
}

const settledFirst = () => 'handler' as const;

/** 202 now; the final answer kept when the handler ends. */
async function answerPending<V>(
  req: Request,
  res: Response,
  till: TillWait,
  running: Promise<V>,
  late: (view: V) => StoredResponse,
  opts: InTimeOptions,
  log: Logger,
) {
  const requestId = String((req as { id?: unknown }).id);
  // Made here, one per 202: the till's own X-Request-Id may be sent again, and must never name an older answer.
  const answerId = randomUUID();
  const terminalId = identityOf(res).terminal.id;
  const key = req.headers['idempotency-key'];
  try {
    await opts.answers.open({ terminalId, requestId: answerId, key: typeof key === 'string' ? key : undefined, createdAt: Date.now() }, opts.ttlMs);
  } catch (err) {
    // The 202 still goes out: the till must not hear "nothing was done"; its same-key retry finds the outcome.
    log.error({ err: { message: (err as Error).message } }, 'could not record the pending answer; only a same-key retry will find its outcome');
  }
  till.cameBack = async () => (await opts.answers.decide(terminalId, answerId, 'released').catch(() => undefined)) === 'till';
  markProvisional(res);
  res.status(202).location(answerLocation(answerId)).setHeader('Retry-After', '1');
  res.json(pendingAnswer(answerId));
  log.info({ requestId, answerId }, 'the till stopped waiting with a write under way: answered 202, the outcome is kept for its read-back');

  let response: StoredResponse;
  let failure: unknown;
  try {
    response = late(await running);
  } catch (err) {
    failure = err;
    const appError = toAppError(err);
    if (appError.status >= 500) log.error({ errorId: appError.id, code: appError.code, err: appError.cause ?? err }, appError.message);
    else log.info({ errorId: appError.id, code: appError.code, status: appError.status }, appError.message);
    const { status, body } = problemAnswer(appError, requestId);
    traceProblem(res, status, appError.code);
    response = { status, contentType: 'application/problem+json; charset=utf-8', body: JSON.stringify(body) };
  }
  await answeredLate(res, response, failure);
  await opts.answers.settle(terminalId, answerId, response).catch((err: Error) => {
    log.error({ err: { message: err.message } }, 'could not keep the final answer for its read-back; a same-key retry gets it');
  });
}
