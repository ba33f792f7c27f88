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
    status: z.number().int().describe('The HTTP status code of this answer'),
    detail: z.string().describe('What is wrong, for a person'),
    code: z.string().describe('Stable machine code, e.g. validation_failed, redemption_not_held, upstream_unavailable'),
    requestId: z.string().describe('The X-Request-Id of this request'),
    errorId: z.string().describe('Matches the log line of this error'),
    errors: z
      .array(
        z.strictObject({
          path: z.string().describe('The field, header or parameter at fault (dotted for nested fields, e.g. lines.0.amount)'),
          message: z.string().describe('What is wrong with it'),
        }),
      )
      .optional()
      .describe('Per-field problems of a validation failure'),
    retryAfterSeconds: z.number().int().optional().describe('Also sent as the Retry-After header'),
  })
  .catchall(z.unknown());

/** `GET /healthz`. */
export const HealthSchema = z.strictObject({ status: z.literal('ok').describe('Always ok: the process answers') });

const CheckState = z.enum(['ok', 'down', 'not_configured', 'stopped', 'shutting_down', 'none', 'stale', 'refused']);
/** `GET /readyz` (200 ready, 503 not ready): each check names what is wrong. */
export const ReadinessSchema = z.strictObject({
  status: z.enum(['ready', 'not_ready']).describe('ready (200) when every check is ok or not_configured (terminals may be stale); else not_ready (503)'),
  checks: z
    .strictObject({
      redis: CheckState.describe('`ok`, `down` (no answer in time), or `not_configured` (the in-process store is used)'),
      upstream: CheckState.describe('`ok` when the loyalty service answered at all within the timeout (cached a few seconds), else `down`'),
      sweeper: CheckState.describe('The expired-hold sweeper: `ok` while it runs, else `stopped`'),
      worker: CheckState.optional().describe('The outbox delivery worker'),
      terminals: CheckState.optional().describe(
        '`none`: no terminal can call yet (add one with the terminal CLI); `stale`: the terminals file changed but could not be loaded, so the terminals loaded before are served and revocations since are not applied (still ready: one bad edit of the file every instance reads must not take the fleet out; alert on `pos_terminals_file_current`)',
      ),
      loyaltyKey: CheckState.optional().describe('`refused`: the loyalty service refuses the key pair in use (codes 1000-1002)'),
      process: CheckState.describe('`ok`, or `shutting_down` from SIGTERM on: the grace (still serving, so a balancer stops sending) and the drain'),
    })
    .describe('Each check by name; what is not ok says what is wrong'),
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
