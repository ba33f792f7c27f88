/**
 * Every problem `code` the cashier API can answer: its status, what it means,
 * and what the till should do. One table, shown in the OpenAPI document (and so
 * on /docs) and in README.md "Errors"; test/store/error-catalogue.test.ts fails
 * when the source throws a code that is not here, or a status disagrees.
 */
export interface CatalogueEntry {
  code: string;
  status: number;
  meaning: string;
  tillDoes: string;
}

const RETRY = 'Retry the same request with the same Idempotency-Key after Retry-After';
const FIX = 'Fix the request (the app, not the cashier): it will not succeed as sent';
const SUPPORT = 'Nothing to fix at the till: call support with the errorId';
const NEW_REDEMPTION = 'Start a new redemption';

const rows: [string, number, string, string][] = [
  // Request shape (400, 413, 415, 431, 408)
  ['validation_failed', 400, 'A field is missing or invalid; `errors` names each field', FIX],
  ['malformed_json', 400, 'The body is not JSON', FIX],
  ['body_too_deep', 400, 'The body nests deeper than 32 levels', FIX],
  ['malformed_body_encoding', 400, 'The body does not decode as its Content-Encoding says', FIX],
  ['malformed_path', 400, 'The path has broken percent-encoding', FIX],
  ['idempotency_key_invalid', 400, 'The Idempotency-Key header is not 1-255 visible ASCII characters, sent once', FIX],
  ['request_aborted', 400, 'The till closed the request before its body arrived', 'Send it again (same Idempotency-Key)'],
  ['request_size_invalid', 400, 'The body was not as long as Content-Length said', 'Send it again (same Idempotency-Key)'],
  ['request_unreadable', 400, 'The body could not be read', 'Send it again (same Idempotency-Key)'],
  ['bad_request', 400, 'The request could not be read for another reason', FIX],
  ['malformed_request', 400, 'Not valid HTTP (answered by the server before any route)', FIX],
  ['request_timeout', 408, 'The request did not arrive in time', 'Send it again (same Idempotency-Key)'],
  ['payload_too_large', 413, 'The body is larger than BODY_LIMIT_BYTES', FIX],
  ['unsupported_media_type', 415, 'The body is not application/json', FIX],
  ['unsupported_encoding', 415, 'The Content-Encoding or charset cannot be read', FIX],
  ['too_many_headers', 431, 'More than MAX_HEADER_COUNT headers', FIX],
  ['headers_too_large', 431, 'Headers larger than MAX_HEADER_BYTES (answered before the request has an id)', FIX],
  ['route_not_found', 404, 'No such route', FIX],
  // Who is calling (401, 403, 429)
  ['missing_token', 401, 'No terminal credentials', 'Set up the terminal token (ask a manager)'],
  ['malformed_authorization', 401, 'The Authorization header is not "Bearer <token>"', FIX],
  ['invalid_token', 401, 'The token is unknown or revoked', 'Ask a manager: the terminal needs a new token'],
  ['invalid_client_certificate', 401, 'The client certificate names no usable terminal, or several', 'Ask a manager: the terminal certificate needs replacing'],
  ['credentials_disagree', 401, 'The token and the client certificate name different terminals', 'Ask a manager: the terminal is set up wrongly'],
  ['role_not_allowed', 403, "The terminal's role may not use this route", 'Ask a manager (e.g. refunds need a manager terminal)'],
  ['cors_origin_not_allowed', 403, 'A browser called from an origin not in CORS_ORIGINS', 'Ask IT to add the tablet app origin to CORS_ORIGINS'],
  ['rate_limited', 429, 'This terminal sent more than TERMINAL_RATE_LIMIT_PER_MINUTE requests this minute', RETRY],
  ['too_many_auth_failures', 429, 'Too many failed authentications from this address this minute', 'Wait Retry-After, then check the token'],
  // Idempotency
  ['idempotency_key_reused', 422, 'This Idempotency-Key was used for a different request', 'Use a new key for a new request'],
  ['idempotency_request_in_progress', 409, 'A request with this Idempotency-Key is still running', RETRY],
  // Customers and redemptions
  ['customer_not_found', 404, 'The loyalty programme has no such customer', 'Check the id or scan the QR code again; nothing was created'],
  ['qr_invalid', 422, "The QR payload is not a customer id followed by the customer's hash (after the last `:` or `|`, or else the last six digits)", 'Scan the QR code again'],
  ['proof_required', 422, 'REDEMPTION_PROOF needs the customer present: a QR code (hash) or an OTP', "Scan the customer's QR code"],
  ['channel_field_required', 422, "The loyalty account joins a customer's profiles by email or mobile, and the request did not carry it; `errors` names the field", "Ask the customer for that field and send it with the request (on every request for this account)"],
  ['hash_invalid', 422, "The customer's hash is wrong or out of date (it changes with every transaction)", "Scan the customer's current QR code again"],
  ['otp_invalid', 422, 'The one-time password is wrong, used or expired', 'Ask the customer for the code again; after repeated failures start a new redemption'],
  ['otp_not_for_this_redemption', 409, 'The newest code sent to the customer was asked for another redemption (or lapsed)', NEW_REDEMPTION + ' (a new code is sent)'],
  ['otp_for_another_redemption', 409, 'A code given with a new redemption was asked for another one', 'Confirm the redemption the code was sent for, or start again without a code'],
  ['otp_pending_for_another_redemption', 409, 'A code sent to this customer for another redemption is still out (`redemptionId` names it when it is this store\'s; `pendingUntil`, `Retry-After`: when it lapses)', 'Confirm that redemption with the code, or start again after Retry-After'],
  ['otp_not_checked', 502, 'REDEMPTION_PROOF=otp but the loyalty account does not check OTPs', 'Ask a manager: a configuration problem'],
  ['rule_not_found', 422, "The redemption rule is not one of the programme's rules", 'Pick another reward'],
  ['insufficient_points', 422, 'The customer does not have enough points', 'Redeem fewer points'],
  ['too_many_open_redemptions', 409, 'This terminal has MAX_OPEN_REDEMPTIONS_PER_TERMINAL redemptions open', 'Complete or void an open redemption first'],
  ['redemption_not_found', 404, 'No such redemption in this store', NEW_REDEMPTION],
  ['redemption_not_awaiting_otp', 409, 'The redemption is not waiting for an OTP (`state` says what it is)', 'Go on from its state (held: pay with it)'],
  ['redemption_not_held', 409, 'The redemption is not held (expired, voided or redeemed; `state` says)', NEW_REDEMPTION],
  ['redemption_expiring', 409, 'The hold has less than HOLD_SAFETY_MARGIN_SECONDS left', 'Void it and start a new redemption'],
  ['redemption_in_use', 409, 'The redemption is already used by another payment', NEW_REDEMPTION],
  ['redemption_customer_mismatch', 409, "The redemption is another customer's", 'Check the customer; start a new redemption for this one'],
  ['payment_in_progress', 409, 'A payment is using this redemption, so it cannot be voided', 'Wait for the payment; void the sale instead if needed'],
  ['redemption_busy', 409, 'Another request is changing this redemption right now', RETRY],
  ['redemption_exists', 409, 'A redemption with this id already exists (an internal clash)', 'Start the redemption again'],
  ['redemption_used', 409, 'The redemption\'s hold was used by a payment, so it cannot be voided', 'Void the sale instead'],
  ['hold_state_unclear', 503, 'The loyalty service refused to release the hold but does not say it ended', RETRY],
  ['otp_in_progress', 409, 'A code for this redemption is being checked right now', 'Read the redemption for its outcome'],
  ['hold_not_active', 409, 'The points hold is gone or no longer active upstream', NEW_REDEMPTION],
  ['hold_already_cancelled', 409, 'The points hold was already released', NEW_REDEMPTION],
  // Sales and refunds
  ['payment_totals_inconsistent', 422, 'totalPaid is more than totalAmount less what the redemption and each locked coupon take off this basket (`errors` names both fields)', 'Fix the till\'s totals: totalPaid is what was paid after discounts, coupons and points'],
  ['total_amount_required', 422, 'A percentage redemption rule cannot be priced without the sale before discounts (`errors` names totalAmount)', 'Send totalAmount with the payment'],
  ['duplicate_transaction', 409, 'A transaction with this id is already recorded', 'It is done: do not charge again (look the sale up)'],
  ['payment_id_taken', 409, 'The payment id is already used by another sale (another store, customer or total); nothing was recorded for this one', 'Ring the sale up again with a new payment id'],
  ['refund_id_taken', 409, 'The refund id is already used by another refund; nothing was refunded', 'Refund again with a new refund id'],
  ['sale_already_voided', 409, 'The sale was already voided', 'Nothing to do'],
  ['sale_void_in_progress', 409, 'A void of this sale is under way, or its outcome is not known yet', 'Send the same void again later'],
  ['sale_not_recorded_yet', 409, 'The sale is not recorded by the loyalty service yet (queued, or a batch order its job has not accepted)', 'Void it once it is recorded (see GET /outbox or the batch job)'],
  ['sale_busy', 503, 'Another request is changing this sale right now', RETRY],
  ['original_transaction_not_found', 404, 'The sale to refund is unknown', 'Check the payment id'],
  ['transaction_not_found', 404, 'The transaction is unknown', 'Check the id'],
  ['refund_exceeds_remaining', 422, 'The refund is more than what is left to refund on the sale', 'Refund a smaller amount'],
  ['coupon_unavailable', 422, 'A coupon is unknown, not offered to this customer, or not usable now', 'Remove the coupon'],
  ['sale_not_found', 404, "The sale was rung up in another store (refunds and voids stay in the sale's store unless RETURNS_AT_ANY_BRANCH)", 'Refund it at the store that sold it, or check the payment id'],
  ['refund_not_found', 404, 'No such refund recorded for this store (yet)', 'Check the refund id; if it was queued, follow GET /outbox/{id}'],
  ['retry_same_request', 503, 'The loyalty service may have applied the write, but it could not be recorded here', 'Send the SAME request again (same Idempotency-Key, same ids) after Retry-After; never start over'],
  ['kiosk_qr_off', 403, "Kiosks do not show customers' QR codes here (KIOSK_QR is off, the default in production)", "The customer shows the QR code from their own app"],
  ['event_not_allowed', 403, "A kiosk sent an event its store does not allow (the store's kioskEvents, else KIOSK_EVENTS)", 'Send only the allowed events from a kiosk; other events from a till'],
  // Coupons at the till
  ['coupon_refused', 422, 'A coupon cannot be used for this sale; nothing was locked (`coupons` gives each code\'s verdict, `reason` the refusal of the codes together)', 'Remove the refused codes and lock again; if every code is usable on its own, lock fewer together'],
  ['coupon_not_found', 422, "The code is not one of the programme's coupons", 'Check the code; remove the coupon'],
  ['coupon_expired', 422, 'The coupon has expired', 'Remove the coupon'],
  ['coupon_not_started', 422, 'The coupon is not valid yet', 'Remove the coupon'],
  ['coupon_inactive', 422, 'The coupon is switched off', 'Remove the coupon'],
  ['coupon_exhausted', 422, 'The coupon has no uses left (overall or for this customer)', 'Remove the coupon'],
  ['coupon_locked', 422, 'Another sale holds the coupon locked', 'Finish or release the other sale, or remove the coupon'],
  ['coupon_not_offered', 422, 'The coupon is not offered to this customer', 'Remove the coupon'],
  ['coupon_minimum_not_met', 422, "The basket is below the coupon's minimum order value", 'Add to the basket or remove the coupon'],
  ['coupon_lock_not_found', 404, 'No such coupon lock in this store', 'Lock the coupons again'],
  ['coupon_lock_used', 409, 'The coupon lock was used by another payment (`state` says)', 'Lock the coupons again for this sale'],
  ['coupon_lock_in_use', 409, 'A payment is using this coupon lock right now', 'Wait for that payment'],
  ['coupon_lock_customer_mismatch', 409, "The coupon lock is another customer's", 'Check the customer; lock the coupons for this one'],
  ['coupon_lock_not_active', 409, 'The coupon lock is no longer active upstream (used, released or expired)', 'Lock the coupons again'],
  ['coupon_lock_busy', 409, 'Another request is changing this coupon lock right now', RETRY],
  ['coupon_lock_exists', 409, 'A coupon lock with this id already exists (an internal clash)', 'Lock the coupons again'],
  ['coupon_lock_basket_changed', 422, 'The sale\'s totalAmount is smaller than the basket the coupons were locked for, or changes what a coupon is worth', 'Release the lock and lock the coupons again for this basket'],
  ['coupon_lock_unconfirmed', 503, 'The loyalty service did not confirm the coupon lock', RETRY],
  ['batch_job_not_found', 404, 'No such batch job', 'Check the job id'],
  ['outbox_entry_not_found', 404, 'No such queued write for this store', 'Check the outbox id'],
  // The loyalty service and Redis
  ['upstream_unavailable', 503, 'The loyalty service is unreachable or failing', RETRY + '; writes without a redemption are queued (202) instead'],
  ['upstream_timeout', 503, 'The loyalty service did not answer in time', RETRY],
  ['upstream_circuit_open', 503, 'The loyalty service failed repeatedly; calls are paused', RETRY],
  ['upstream_rate_limited', 503, 'The loyalty service (or the fleet limit) is busy', RETRY],
  ['upstream_call_aborted', 503, 'The call to the loyalty service was cancelled (e.g. the till hung up)', RETRY],
  ['upstream_rejected', 422, 'The loyalty service refused the request for another reason', 'Check the request; call support with the errorId if it persists'],
  ['upstream_not_found', 404, 'The loyalty service has no such resource', 'Check the id'],
  ['upstream_invalid_response', 502, 'The loyalty service answered something unusable', SUPPORT],
  ['upstream_auth_failed', 502, "The loyalty service refused the middleware's keys", 'Ask a manager: a configuration problem'],
  ['redis_unavailable', 503, 'Redis is down: nothing that cannot be recorded is accepted', RETRY],
  ['identity_missing', 500, 'A route was reached without authentication (a bug)', SUPPORT],
  ['internal_error', 500, 'An unexpected error', SUPPORT],
];

export const ERROR_CATALOGUE: readonly CatalogueEntry[] = rows.map(([code, status, meaning, tillDoes]) => ({ code, status, meaning, tillDoes }));

/** The catalogue as one Markdown table (for the OpenAPI description and the README). */
export function catalogueTable(): string {
  const esc = (s: string) => s.replace(/\|/g, '\\|');
  return ['| Code | Status | Meaning | What the till does |', '|---|--:|---|---|', ...ERROR_CATALOGUE.map((e) => `| \`${e.code}\` | ${e.status} | ${esc(e.meaning)} | ${esc(e.tillDoes)} |`)].join('\n');
}
