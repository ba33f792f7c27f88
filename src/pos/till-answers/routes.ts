import { routesGiven, TILL } from '../http/route';
import { readAnswer, type ReadBackDeps } from './read-back';
import { PendingAnswerSchema, pendingAnswer, RequestIdParam } from './schemas';

const route = routesGiven<ReadBackDeps>();

/** The read-back of answers a till stopped waiting for. */
export const TILL_ANSWER_ROUTES = [
  route({
    method: 'get',
    path: '/answers/:requestId',
    operationId: 'readAnswer',
    tag: 'Payments',
    roles: TILL,
    summary: 'The outcome of a write the till stopped waiting for (answered 202 at its Prefer: wait)',
    description:
      'While the write runs: 202, this body and Retry-After. Then its final answer exactly as its route gave it (status, e.g. 201, 202 ' +
      '`queued`, 409, 503, and body), with `Answer-Replayed: true`. A terminal reads only its own; 404 `answer_not_found` when unknown or ' +
      'older than 24 hours; 503 `answer_lost` when the instance running it stopped (it may have been done: read the resource, e.g. GET ' +
      '/payments/{paymentId}; do not send the write again). Reading it counts as coming back for it: a points hold placed after the 202 is then kept ' +
      '(otherwise it is released when it lands). With `Prefer: wait=<seconds>` it waits for the outcome up to then (a long poll).',
    params: RequestIdParam,
    success: {
      status: 202,
      description: 'Still running: read again after Retry-After',
      schema: PendingAnswerSchema,
      example: pendingAnswer('9f1c2d3e-0000-4000-8000-000000000001'),
    },
    callsLoyalty: false,
    codes: ['answer_not_found', 'answer_lost'],
    handle: (deps, ctx, { params }) => readAnswer(deps, ctx, params.requestId),
  }),
];
