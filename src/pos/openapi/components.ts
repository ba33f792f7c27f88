import { STATUS_CODES } from 'node:http';
import type { OpenAPIRegistry, ResponseConfig } from '@asteasolutions/zod-to-openapi';
import { named } from '../../platform/openapi';
import * as customers from '../customers/schemas';
import * as events from '../events/schemas';
import * as http from '../answers';
import * as orders from '../orders/schemas';
import * as outbox from '../outbox/schemas';
import * as redemptions from '../redemptions/schemas';
import * as refunds from '../refunds/schemas';
import * as sales from '../sales/schemas';
import { PROBLEM_CATALOGUE, type ProblemCode } from '../../platform/problem-catalogue';
import { PROBLEM_EXAMPLES, RATE_LIMIT_HEADER_NAMES, STATUS_HEADERS } from './errors';

/** Component names of the cashier API's own schemas (each from its feature's schemas.ts; the problem and health answers from ../answers). */
export function nameSchemas(): void {
  named(redemptions.StartRedemptionBody, 'StartRedemptionRequest', {
    description: 'Give exactly one of amount, points, ruleId; and qr, or customerId (with hash).',
  });
  named(redemptions.SubmitOtpBody, 'SubmitOtpRequest');
  named(sales.PaymentBody, 'PaymentRequest', {
    description: 'Merchant, branch and channel come from the terminal; name a held redemption to pay with its points.',
  });
  named(sales.SaleLine, 'SaleLine', { description: 'One line of a sale: the same shape in payments, refunds and earn previews.' });
  named(sales.SaleVoidBody, 'SaleVoidRequest');
  named(refunds.RefundBody, 'RefundRequest', { description: 'Full refund (no amount, no lines), by amount, or by lines; not both.' });
  named(events.EventsBody, 'EventsRequest');
  named(orders.BatchOrdersBody, 'OrderBatchRequest');
  named(orders.BatchOrder, 'OfflineOrder');
  named(redemptions.RedemptionViewSchema, 'Redemption');
  named(redemptions.RedemptionAskSchema, 'RedemptionAsk');
  named(sales.PaymentViewSchema, 'PaymentResult');
  named(refunds.RefundViewSchema, 'RefundResult');
  named(customers.CustomerSummarySchema, 'CustomerSummary');
  named(customers.CustomerHashSchema, 'CustomerHash');
  named(customers.CustomerDeletedSchema, 'CustomerDeleted');
  named(events.EventsAcceptedSchema, 'EventsAccepted');
  named(orders.OrderBatchAcceptedSchema, 'OrderBatchAccepted');
  named(orders.OrderBatchStatusSchema, 'OrderBatchStatus');
  named(sales.QueuedPaymentSchema, 'QueuedPayment', {
    description: 'The loyalty service was out of reach: the payment waits in the outbox and is delivered later with its own paymentId.',
  });
  named(refunds.QueuedRefundSchema, 'QueuedRefund', {
    description: 'The loyalty service was out of reach: the refund waits in the outbox (its refundId makes a second delivery harmless).',
  });
  named(events.QueuedEventsSchema, 'QueuedEvents');
  named(orders.QueuedOrderBatchSchema, 'QueuedOrderBatch', {
    description: 'The upload waits in the outbox; its jobId shows in GET /pos/v1/outbox/{id} once delivered.',
  });
  named(outbox.OutboxEntryViewSchema, 'OutboxEntry');
  named(outbox.DeadLettersSchema, 'DeadLetters');
  named(http.HealthSchema, 'Health');
  named(http.ReadinessSchema, 'Readiness');
  named(http.ProblemSchema, 'Problem', { description: 'RFC 9457 problem details (application/problem+json)' });
}

const PROBLEM = 'application/problem+json';
const ref = (kind: string, name: string) => ({ $ref: `#/components/${kind}/${name}` });

/**
 * One error answer per status: the Problem with `code` narrowed to the codes
 * of that status (so a generated client tells them apart per call), each code
 * described from the catalogue, with the examples of those that have one.
 */
export function problemResponses(byStatus: ReadonlyMap<number, readonly ProblemCode[]>): Record<string, ResponseConfig> {
  const responses: Record<string, ResponseConfig> = {};
  for (const [status, codes] of byStatus) {
    const headers = Object.fromEntries(Object.entries(STATUS_HEADERS[status] ?? {}).map(([header, component]) => [header, ref('headers', component)]));
    const examples = Object.fromEntries(codes.filter((c) => PROBLEM_EXAMPLES[c]).map((c) => [c, ref('examples', c)]));
    responses[status] = {
      description: [
        `${STATUS_CODES[status]}: \`code\` is one of these (what it means; what the till does):`,
        ...codes.map((c) => `- \`${c}\`: ${PROBLEM_CATALOGUE[c].meaning}. ${PROBLEM_CATALOGUE[c].tillDoes}.`),
      ].join('\n'),
      headers: { ...REQUEST_ID_HEADER, ...headers },
      content: {
        [PROBLEM]: {
          schema: {
            allOf: [
              ref('schemas', 'Problem'),
              {
                type: 'object',
                required: ['code'],
                properties: { code: { type: 'string', enum: [...codes], description: `The ${status} codes of this operation` } },
              },
            ],
          },
          ...(Object.keys(examples).length ? { examples } : {}),
        },
      },
    };
  }
  return responses;
}

export const PARAMS = {
  idempotencyKey: ref('parameters', 'IdempotencyKey'),
  idempotencyKeyRequired: ref('parameters', 'IdempotencyKeyRequired'),
  requestId: ref('parameters', 'RequestId'),
  prefer: ref('parameters', 'Prefer'),
  cashierId: ref('parameters', 'CashierId'),
  shiftId: ref('parameters', 'ShiftId'),
};
export const REQUEST_ID_HEADER = { 'X-Request-Id': ref('headers', 'XRequestId') };
export const REPLAYED_HEADER = { 'Idempotent-Replayed': ref('headers', 'IdempotentReplayed') };
/** Sent on every authenticated `/pos/v1` answer while the per-terminal limit is on. */
export const RATE_LIMIT_HEADERS = Object.fromEntries(Object.entries(RATE_LIMIT_HEADER_NAMES).map(([header, name]) => [header, ref('headers', name)]));

/** Security schemes, shared parameters, headers and error responses. */
export function registerComponents(registry: OpenAPIRegistry): void {
  registry.registerComponent('securitySchemes', 'terminalToken', {
    type: 'http',
    scheme: 'bearer',
    description:
      'The terminal token, shown once when the terminal is created (`npm run terminal -- add ...`). ' +
      'Each terminal belongs to one store and has one role: cashier, manager or kiosk.',
  });
  // OpenAPI 3.1 has `mutualTLS`; openapi3-ts's 3.1 types lack it (their 3.2 types have it).
  registry.registerComponent('securitySchemes', 'clientCertificate', {
    type: 'mutualTLS',
    description:
      'Instead of a bearer token, when the BFF serves HTTPS with TLS_CLIENT_CA_FILE set: a client certificate signed by that CA whose subject CN, ' +
      'or one of whose DNS subject alternative names, is a terminal id. It must name exactly one active terminal (else 401 `invalid_client_certificate`); ' +
      "a bearer token sent as well must be that terminal's own (else 401 `credentials_disagree`). " +
      'With TLS_CLIENT_CERT_REQUIRED=true (the default when a client CA is set) a connection without such a certificate fails in the TLS handshake.',
  } as unknown as Parameters<typeof registry.registerComponent<'securitySchemes'>>[2]);
  registry.registerComponent('parameters', 'IdempotencyKey', {
    name: 'Idempotency-Key',
    in: 'header',
    required: false,
    description:
      'Makes a retry safe: the same key (per terminal) with the same body and query replays the first answer; with another body or query ' +
      '(`?receipt=none` against the default) it is 422; ' +
      'while the first is still running it is 409. Keys are kept 24 hours. 1 to 255 visible characters.',
    schema: { type: 'string', minLength: 1, maxLength: 255 },
    example: '0f6c2b1e-sale-1001',
  });
  registry.registerComponent('parameters', 'IdempotencyKeyRequired', {
    name: 'Idempotency-Key',
    in: 'header',
    required: true,
    description:
      'Required on this write: it creates something the till has no id of its own for, so a retry without the key could do it twice ' +
      '(400 `idempotency_key_required`). Send a new key per request and the same key on its retries: the same key with the same body ' +
      'replays the first answer; with another body it is 422; while the first is still running it is 409. Keys are kept 24 hours. 1 to 255 visible characters.',
    schema: { type: 'string', minLength: 1, maxLength: 255 },
    example: '7d1e4c2a-redemption',
  });
  registry.registerComponent('parameters', 'RequestId', {
    name: 'X-Request-Id',
    in: 'header',
    required: false,
    description: 'Your id for this request (letters, digits, . _ : -, up to 128), logged and passed to the loyalty service; one is made up when absent.',
    // No example: Swagger UI would send it with every "Try it out" call, one id for many requests.
    schema: { type: 'string', pattern: '^[A-Za-z0-9._:-]{1,128}$' },
  });
  registry.registerComponent('parameters', 'Prefer', {
    name: 'Prefer',
    in: 'header',
    required: false,
    description:
      'RFC 7240 `wait=<seconds>` (1..120): how long the till waits. Within it the BFF always answers: the normal answer when done; 202 ' +
      '(PendingAnswer, Location /pos/v1/answers/{requestId}, Retry-After) when a write is still under way at the loyalty service; ' +
      '503 `till_deadline_reached` when nothing was sent (nothing was done). Honoured: `Preference-Applied: wait=<n>` on the answer. ' +
      "Another value is ignored. Absent: the store's TILL_WAIT_SECONDS, if set.",
    schema: { type: 'string' },
    example: 'wait=3',
  });
  for (const [name, header, example] of [
    ['CashierId', 'X-Cashier-Id', 'cashier-017'],
    ['ShiftId', 'X-Shift-Id', 'shift-2026-11-24-am'],
  ] as const) {
    registry.registerComponent('parameters', name, {
      name: header,
      in: 'header',
      required: false,
      description:
        `The till's own id of the ${name === 'CashierId' ? 'cashier' : 'shift'} (never a name or an email): kept in the audit trail with the action, logged, ` +
        "and sent in a payment's `extra`. 1 to 64 letters, digits, . _ : - (else 400 `cashier_header_invalid`). A store may require it and X-Shift-Id " +
        'on every write (400 `cashier_required`).',
      schema: { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$' },
      example,
    });
  }
  registry.registerComponent('headers', 'XRequestId', {
    description: 'The request id: yours when it was valid, otherwise a new UUID. Quote it in a support ticket.',
    schema: { type: 'string' },
  });
  registry.registerComponent('headers', 'IdempotentReplayed', {
    description: '`true` when this is the stored answer of an earlier request with the same Idempotency-Key.',
    schema: { type: 'string', enum: ['true'] },
  });
  registry.registerComponent('headers', 'RetryAfter', {
    description: 'Seconds to wait before trying again.',
    schema: { type: 'integer', minimum: 1 },
  });
  registry.registerComponent('headers', 'RateLimitLimit', {
    description: 'Requests this terminal may send per minute (TERMINAL_RATE_LIMIT_PER_MINUTE). Sent after authentication while the limit is on.',
    schema: { type: 'integer', minimum: 1 },
  });
  registry.registerComponent('headers', 'RateLimitRemaining', {
    description: 'Requests this terminal has left in the current minute.',
    schema: { type: 'integer', minimum: 0 },
  });
  registry.registerComponent('headers', 'RateLimitReset', {
    description: 'Seconds until the current minute ends and the budget is whole again.',
    schema: { type: 'integer', minimum: 1 },
  });
  registry.registerComponent('headers', 'WwwAuthenticate', {
    description: '`Bearer realm="pos"`, with `error="invalid_token"` when credentials were sent (RFC 6750).',
    schema: { type: 'string' },
  });
  for (const [code, example] of Object.entries(PROBLEM_EXAMPLES)) registry.registerComponent('examples', code, example);
}
