import { z } from 'zod';
import { POS_API_PREFIX } from '../api-prefix';

/** Where the till reads a request's answer back. */
export const answerLocation = (requestId: string) => `${POS_API_PREFIX}/answers/${encodeURIComponent(requestId)}`;

export const PendingAnswerSchema = z
  .strictObject({
    pending: z.literal(true).describe('Always true: the outcome is not known yet'),
    requestId: z.string().describe("This answer's id, made by the BFF for this 202 (not the request's X-Request-Id)"),
    location: z.string().describe('GET it for the outcome (also the Location header): /pos/v1/answers/{requestId}'),
    retryAfterSeconds: z.number().int().describe('Also the Retry-After header'),
    detail: z.string().describe('What to do, for a person'),
  })
  .meta({
    id: 'PendingAnswer',
    description:
      'The till stopped waiting (Prefer: wait) while a write was on its way to the loyalty service: it may have been done. ' +
      'Read the outcome at `location` (or send the same request again with the same Idempotency-Key); never start over.',
  });
export type PendingAnswer = z.output<typeof PendingAnswerSchema>;

export function pendingAnswer(requestId: string): PendingAnswer {
  return {
    pending: true,
    requestId,
    location: answerLocation(requestId),
    retryAfterSeconds: 1,
    detail: 'Still under way at the loyalty service: read the outcome at location, or send the same request again with the same Idempotency-Key',
  };
}

export const RequestIdParam = z.object({
  requestId: z
    .string()
    .regex(/^[A-Za-z0-9._:-]{1,128}$/, 'must be 1-128 letters, digits, ".", "_", ":" or "-"')
    .meta({
      description: 'The id of the answer given with the 202 (the end of its Location; made by the BFF, not the X-Request-Id)',
      example: '9f1c2d3e-0000-4000-8000-000000000001',
    }),
});
