import { z } from 'zod';
import { DateTime } from '../contract';
import { REDEMPTION_MACHINE, type RedemptionState as RedemptionStateName } from './money/machines';
import type { Readiness } from './http/health';
import { QueuedViewSchema } from './outbox/schemas';

/**
 * What the cashier routes answer, as zod schemas: the source of the OpenAPI
 * document's response bodies and of the till client types. Strict, so a field
 * an operation starts returning without a schema here fails the e2e check
 * (test/docs/responses.test.ts); each route entry's handler must return what
 * its schemas say, at compile time.
 */

const RedemptionState = z.enum(Object.keys(REDEMPTION_MACHINE) as [RedemptionStateName, ...RedemptionStateName[]]);

export const RedemptionAskSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('amount'), amount: z.number() }),
  z.strictObject({ kind: z.literal('points'), points: z.number().int() }),
  z.strictObject({ kind: z.literal('rule'), ruleId: z.string() }),
]);

export const RedemptionViewSchema = z.strictObject({
  id: z.string().describe('rdm_...; name it in GET/void/otp and in the payment'),
  state: RedemptionState.describe(
    'otp_required -> confirming -> held -> paying -> redeemed; held -> voiding -> voided; held -> expired. `confirming`, `paying` and `voiding` are a code check, a payment or a void under way (or its outcome not yet known). docs/STATES.md has every transition; ending states are final.',
  ),
  customerId: z.string(),
  ask: RedemptionAskSchema.describe('What the till asked to redeem'),
  points: z.number().nullable().describe('Points on hold (null until held)'),
  amount: z.number().nullable().describe('Money value on hold (null until held)'),
  expiresAt: DateTime.nullable().describe('When the hold ends (null until held)'),
  secondsLeft: z.number().int().nonnegative().describe('Seconds until the hold ends; 0 unless held, paying or voiding'),
  paymentId: z.string().nullable().describe('The payment that claimed this redemption, if any'),
  createdAt: DateTime,
  updatedAt: DateTime,
});

export const PaymentViewSchema = z.strictObject({
  paymentId: z.string(),
  customerId: z.string(),
  status: z
    .enum(['recorded', 'already_recorded'])
    .describe('already_recorded: a retry found the payment applied earlier; its reward figures are then unknown (null)'),
  pointsEarned: z.number().nullable(),
  pointsRedeemed: z.number().nullable(),
  lines: z.array(z.strictObject({ serviceId: z.string(), points: z.number() })).describe('Points earned per payment line'),
  redemption: z.strictObject({ id: z.string(), state: RedemptionState }).optional().describe('The redemption the payment used, when one was named'),
});

export const RefundViewSchema = z.strictObject({
  refundId: z.string(),
  paymentId: z.string(),
  customerId: z.string(),
  status: z.enum(['refunded', 'already_refunded']).describe('already_refunded: a retry found the refund applied earlier'),
  amountRefunded: z.number().nullable(),
  pointsReversed: z.number().nullable(),
  loyaltyTransactionId: z.string().nullable(),
});

const shownIfGiven = 'null when the loyalty service did not give it';
export const CustomerSummarySchema = z.strictObject({
  customerId: z.string(),
  currency: z.string().nullable().describe(shownIfGiven),
  pointsName: z.string().nullable().describe(shownIfGiven),
  points: z
    .strictObject({
      available: z.number().describe('Always given: what can be redeemed now'),
      pending: z.number().nullable(),
      total: z.number().nullable(),
      held: z.number().nullable(),
      earnedAllTime: z.number().nullable(),
    })
    .describe(`Points; each but available is ${shownIfGiven}`),
  value: z
    .strictObject({ available: z.number().nullable(), pending: z.number().nullable(), total: z.number().nullable() })
    .describe(`Money value of the points; ${shownIfGiven}`),
  tier: z
    .strictObject({ current: z.string(), next: z.string().nullable().describe('Null in the top tier'), progress: z.number(), nextAt: z.number().nullable() })
    .nullable()
    .describe('Null when tier progress could not be read (then "tier" is in unavailable)'),
  coupons: z
    .array(
      z
        .strictObject({
          code: z.string(),
          name: z.string().nullable(),
          value: z.number().nullable(),
          currency: z.string().nullable(),
          expiresAt: DateTime.nullable(),
          usable: z.boolean().nullable(),
        })
        .describe(`Each field but code is ${shownIfGiven}`),
    )
    .nullable()
    .describe('Null when coupons could not be read (then "coupons" is in unavailable)'),
  unavailable: z.array(z.string()).describe('Parts that could not be read this time: "tier", "coupons"'),
});

export const CustomerHashSchema = z.strictObject({
  customerId: z.string(),
  hash: z.string().describe("The loyalty service's hash (six digits from the bundled sandbox); changes after each transaction of the customer"),
  qr: z.string().describe('What to render as the QR code: customer id, ":", hash'),
});

export const CustomerDeletedSchema = z.strictObject({ customerId: z.string(), deleted: z.boolean().describe('Always true') });

export const EventsAcceptedSchema = z.strictObject({ customerId: z.string(), accepted: z.array(z.string()).describe('The event names sent on') });

export const OrderBatchAcceptedSchema = z.strictObject({ jobId: z.number().int(), orders: z.number().int().describe('Orders in the upload') });

export const OrderBatchStatusSchema = z.strictObject({
  jobId: z.number().int(),
  status: z.enum(['queued', 'running', 'completed', 'failed']),
  total: z.number().int(),
  processed: z.number().int(),
  succeeded: z.number().int(),
  failed: z.number().int(),
  failures: z
    .array(
      z.strictObject({
        orderId: z.string().nullable(),
        customerId: z.string().nullable(),
        reason: z.string().describe("Our words, by the loyalty service's code"),
      }),
    )
    .describe('Orders that failed; ids are null when the loyalty service did not name them'),
});

/** 202 answers of writes queued in the outbox: the common part and the till's own ids. */
const queued = <T extends z.ZodRawShape>(ids: T) => z.strictObject({ ...QueuedViewSchema.shape, ...ids });
export const QueuedPaymentSchema = queued({ paymentId: z.string(), customerId: z.string() });
export const QueuedRefundSchema = queued({ refundId: z.string(), paymentId: z.string(), customerId: z.string() });
export const QueuedEventsSchema = queued({ customerId: z.string(), accepted: z.array(z.string()) });
export const QueuedOrderBatchSchema = queued({ orders: z.number().int() });

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

const CheckState = z.enum(['ok', 'down', 'not_configured', 'stopped', 'shutting_down']);
/** `GET /readyz` (200 ready, 503 not ready): each check names what is wrong. */
export const ReadinessSchema = z.strictObject({
  status: z.enum(['ready', 'not_ready']),
  checks: z.strictObject({
    redis: CheckState,
    upstream: CheckState,
    sweeper: CheckState,
    worker: CheckState.optional().describe('The outbox delivery worker'),
    process: CheckState,
  }),
});

// The routes' answers are checked against these schemas where each route entry compiles (src/pos/http/route.ts);
// readiness is served outside the route table, so it is checked here.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const inStep: Same<z.output<typeof ReadinessSchema>, Readiness> = true;
void inStep;
