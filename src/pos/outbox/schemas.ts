import { z } from 'zod';
import { DateTime } from '../../contract';
import type { Same } from '../../platform/validation';
import type { QueuedView } from './forward';
import type { OutboxEntryView } from './operations';

/** Requests and answers of the outbox routes, for parsing and for the OpenAPI document. */
export const OutboxIdParam = z.strictObject({ id: z.string().regex(/^obx_[A-Za-z0-9_-]{8,64}$/, 'must be an outbox id (obx_...)') });
export const DeadLetterQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(500).default(100).describe('Entries to list, 1 to 500 (default 100)'),
});

const Kind = z
  .enum(['payment', 'refund', 'events', 'batchOrders'])
  .describe('What the write is: a payment, a refund (or sale void), events, or a batch of orders');

/** The common part of a 202 answer to a queued write; the route adds the till's own ids (paymentId, refundId, customerId, accepted, orders). */
export const QueuedViewSchema = z.object({
  queued: z.literal(true).describe('Always true: the write is kept in the outbox and sent when the loyalty service can take it'),
  outboxId: z.string().describe('obx_...; GET /pos/v1/outbox/{outboxId} shows its state'),
  state: z.literal('queued').describe("The outbox entry's state now"),
  kind: Kind,
  reason: z
    .string()
    .describe(
      'Why it was queued: upstream_unavailable, upstream_timeout, upstream_circuit_open, upstream_busy, or behind_queued (this customer already had queued writes)',
    ),
});

/** 202 answers of writes queued in the outbox: the common part and the till's own ids. */
export const queuedAnswer = <T extends z.ZodRawShape>(ids: T) => z.strictObject({ ...QueuedViewSchema.shape, ...ids });

export const OutboxEntryViewSchema = z.strictObject({
  outboxId: z.string().describe('The entry (obx_...)'),
  kind: Kind,
  state: z
    .enum(['queued', 'delivering', 'delivered', 'dead', 'discarded'])
    .describe(
      'queued: waiting; delivering: being sent; delivered: the loyalty service took it; dead: refused or failed too often (a manager retries or discards it); discarded: a manager dropped it',
    ),
  reason: z.string().describe("Why it was queued: the failure's code, or behind_queued"),
  attempts: z.number().int().describe('Sends tried so far (refusals by the circuit breaker or rate limiter are not counted)'),
  createdAt: DateTime.describe('When it was queued, ISO 8601 UTC'),
  updatedAt: DateTime.describe('When it last changed, ISO 8601 UTC'),
  nextAttemptAt: DateTime.optional().describe('Queued and waiting for its backoff'),
  deliveredAt: DateTime.optional().describe('When it was delivered, ISO 8601 UTC'),
  deadAt: DateTime.optional().describe('When it was given up (dead), ISO 8601 UTC'),
  lastError: z
    .strictObject({
      code: z.string().describe("The failure's catalogue code"),
      message: z.string().describe('The failure in words'),
      status: z.number().int().optional().describe('The HTTP status of that code'),
    })
    .optional()
    .describe('Why its last send failed'),
  result: z.record(z.string(), z.unknown()).optional().describe('What the loyalty service answered on delivery: pointsEarned, jobId, alreadyRecorded...'),
  subject: z.record(z.string(), z.unknown()).describe('What the entry is about: customerId, paymentId, refundId, events, orders'),
  terminalId: z.string().describe('The terminal that made the write'),
});

export const DeadLettersSchema = z.strictObject({ deadLetters: z.array(OutboxEntryViewSchema).describe('Newest first, this store only') });

const inStep: [Same<z.output<typeof QueuedViewSchema>, QueuedView>, Same<z.output<typeof OutboxEntryViewSchema>, OutboxEntryView>] = [true, true];
void inStep;
