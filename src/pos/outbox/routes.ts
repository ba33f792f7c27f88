import { z } from 'zod';
import { routesGiven } from '../http/route';
import { OUTBOX_ID, outboxExamples } from './examples';
import { discardDeadLetter, listDeadLetters, outboxStatus, retryDeadLetter, type DeadLetterDeps } from './operations';
import * as outbox from './schemas';

const route = routesGiven<DeadLetterDeps>();

const outboxId = z.object({ id: outbox.OutboxIdParam.shape.id.meta({ description: 'The outboxId of a queued write', example: OUTBOX_ID }) });
const discarded = {
  status: 200 as const,
  description: 'Discarded',
  schema: outbox.OutboxEntryViewSchema,
  example: { ...outboxExamples.deadLetter, state: 'discarded' },
};

/**
 * Queued writes: their state for the till that made them (its store), and the
 * dead letters for managers. `/outbox/dead` is listed before `/outbox/:id`, which would take it.
 */
export const OUTBOX_ROUTES = [
  route({
    method: 'get',
    path: '/outbox/dead',
    operationId: 'listDeadLetters',
    tag: 'Outbox',
    roles: ['manager'],
    summary: "This store's dead letters: queued writes that will not be delivered by themselves (manager)",
    query: outbox.DeadLetterQuery,
    success: { status: 200, description: 'Newest first', schema: outbox.DeadLettersSchema, example: { deadLetters: [outboxExamples.deadLetter] } },
    callsLoyalty: false,
    codes: [],
    handle: (deps, ctx, { query }) => listDeadLetters(deps, ctx, query.limit),
  }),
  route({
    method: 'post',
    path: '/outbox/dead/:id/retry',
    operationId: 'retryDeadLetter',
    tag: 'Outbox',
    roles: ['manager'],
    summary: 'Put a dead letter back in the queue, once its cause is fixed (manager)',
    params: outboxId,
    success: {
      status: 200,
      description: 'Queued again',
      schema: outbox.OutboxEntryViewSchema,
      example: { ...outboxExamples.deadLetter, state: 'queued', deadAt: undefined },
    },
    callsLoyalty: false,
    codes: ['outbox_entry_not_found', 'dead_letter_id_taken', 'dead_letter_maybe_recorded'],
    handle: (deps, ctx, { params }) => retryDeadLetter(deps, ctx, params.id),
  }),
  route({
    method: 'post',
    path: '/outbox/dead/:id/discard',
    operationId: 'discardDeadLetter',
    tag: 'Outbox',
    roles: ['manager'],
    summary: 'Give up on a dead letter: it never reaches the loyalty service (manager)',
    params: outboxId,
    success: discarded,
    callsLoyalty: false,
    codes: ['outbox_entry_not_found'],
    handle: (deps, ctx, { params }) => discardDeadLetter(deps, ctx, params.id),
  }),
  route({
    method: 'delete',
    path: '/outbox/dead/:id',
    operationId: 'deleteDeadLetter',
    tag: 'Outbox',
    roles: ['manager'],
    summary: 'Discard a dead letter (DELETE form) (manager)',
    params: outboxId,
    success: discarded,
    callsLoyalty: false,
    codes: ['outbox_entry_not_found'],
    handle: (deps, ctx, { params }) => discardDeadLetter(deps, ctx, params.id),
  }),
  route({
    method: 'get',
    path: '/outbox/:id',
    operationId: 'getOutboxEntry',
    tag: 'Outbox',
    roles: ['cashier', 'manager', 'kiosk'],
    summary: "State of a queued write (this store's)",
    description: 'queued -> delivering -> delivered, or dead (refused by the loyalty service, or too many attempts) -> retried or discarded.',
    params: outboxId,
    success: { status: 200, description: 'The entry', schema: outbox.OutboxEntryViewSchema, example: outboxExamples.outboxEntry },
    callsLoyalty: false,
    codes: ['outbox_entry_not_found'],
    handle: (deps, ctx, { params }) => outboxStatus(deps, ctx, params.id),
  }),
];
