import { z } from 'zod';

/**
 * Answers no one feature owns: the problem details any route may answer, and
 * the operator routes' health and readiness. Like each feature's answer shapes
 * (its schemas.ts), they are the source of the OpenAPI document and the till
 * client types, and real answers are checked against them (test/docs/responses.test.ts).
 */

/** RFC 9457 problem details, as src/pos/http/problem.ts renders them. Extra members (e.g. `state`, `requiredRoles`) may follow. */
export const ProblemSchema = z
  .object({
    type: z.string().describe('urn:pos-loyalty:problem:<code>'),
    title: z.string().describe('The HTTP status text'),
    status: z.number().int(),
    detail: z.string().describe('What is wrong, for a person'),
    code: z.string().describe('Stable machine code, e.g. validation_failed, redemption_not_held, upstream_unavailable'),
    requestId: z.string().describe('The X-Request-Id of this request'),
    errorId: z.string().describe('Matches the log line of this error'),
    errors: z
      .array(z.strictObject({ path: z.string(), message: z.string() }))
      .optional()
      .describe('Per-field problems of a validation failure'),
    retryAfterSeconds: z.number().int().optional().describe('Also sent as the Retry-After header'),
  })
  .catchall(z.unknown());

/** `GET /healthz`. */
export const HealthSchema = z.strictObject({ status: z.literal('ok') });

const CheckState = z.enum(['ok', 'down', 'not_configured', 'stopped', 'shutting_down', 'none', 'stale', 'refused']);
/** `GET /readyz` (200 ready, 503 not ready): each check names what is wrong. */
export const ReadinessSchema = z.strictObject({
  status: z.enum(['ready', 'not_ready']),
  checks: z.strictObject({
    redis: CheckState,
    upstream: CheckState,
    sweeper: CheckState,
    worker: CheckState.optional().describe('The outbox delivery worker'),
    terminals: CheckState.optional().describe(
      '`none`: no terminal can call yet (add one with the terminal CLI); `stale`: the terminals file changed but could not be loaded, so the terminals loaded before are served and revocations since are not applied (still ready: one bad edit of the file every instance reads must not take the fleet out; alert on `pos_terminals_file_current`)',
    ),
    loyaltyKey: CheckState.optional().describe('`refused`: the loyalty service refuses the key pair in use (codes 1000-1002)'),
    process: CheckState,
  }),
  redisDataset: z
    .strictObject({
      lostAt: z.string().describe('When this instance found the Redis data set emptied or replaced (ISO 8601)'),
      lastSeenGoodAt: z.string().describe('The last time before that its marker was seen as remembered (ISO 8601)'),
    })
    .optional()
    .describe(
      'Present once this instance has found the Redis data set lost (until it restarts). A detail, not a check: Redis works again, ' +
        "so the instance stays ready; what Redis held is then read from the loyalty service's records",
    ),
});
