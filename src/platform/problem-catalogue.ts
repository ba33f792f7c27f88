import type { ErrorStatus } from './errors';

/** What a till may do after an answer (README "Retrying safely"; what each means: ./retry-rules.ts RETRY_RULES). */
export type RetryRule = 'same' | 'new' | 'read' | 'stop';

/**
 * Every problem `code` the cashier API can answer: its status, what it means,
 * and what the till should do. One table: `problem()` builds each error from
 * its row, and it is shown in the OpenAPI document (and so on /docs) and in
 * README.md "Errors". Keyed by code, so no code can have two rows. `retry` is
 * the code's retry rule on every route but those ./retry-rules.ts names.
 */
export interface CatalogueEntry {
  status: ErrorStatus;
  /** What the till may send next (same / new / read / stop; see RETRY_RULES). */
  retry: RetryRule;
  meaning: string;
  tillDoes: string;
}

const RETRY = 'Retry the same request with the same Idempotency-Key after Retry-After';
const FIX = 'Fix the request (the app, not the cashier): it will not succeed as sent';
const SUPPORT = 'Nothing to fix at the till: call support with the errorId';
const NEW_REDEMPTION = 'Start a new redemption';

export const PROBLEM_CATALOGUE = {
  // Request shape (400, 413, 415, 431, 408)
  validation_failed: { status: 400, retry: 'stop', meaning: 'A field is missing or invalid; `errors` names each field', tillDoes: FIX },
  malformed_json: { status: 400, retry: 'stop', meaning: 'The body is not JSON', tillDoes: FIX },
  body_too_deep: { status: 400, retry: 'stop', meaning: 'The body nests deeper than 32 levels', tillDoes: FIX },
  malformed_body_encoding: { status: 400, retry: 'stop', meaning: 'The body does not decode as its Content-Encoding says', tillDoes: FIX },
  malformed_path: { status: 400, retry: 'stop', meaning: 'The path has broken percent-encoding', tillDoes: FIX },
  idempotency_key_required: {
    status: 400,
    retry: 'new',
    meaning: 'This write needs an Idempotency-Key header: a retry without one could do it twice',
    tillDoes: 'Send a new key per request and the same key on its retries',
  },
  idempotency_key_invalid: {
    status: 400,
    retry: 'stop',
    meaning: 'The Idempotency-Key header is not 1-255 visible ASCII characters, sent once',
    tillDoes: FIX,
  },
  cashier_header_invalid: {
    status: 400,
    retry: 'stop',
    meaning: 'X-Cashier-Id or X-Shift-Id is not 1-64 letters, digits, ".", "_", ":" or "-", sent once; `errors` names the header',
    tillDoes: FIX,
  },
  cashier_required: {
    status: 400,
    retry: 'new',
    meaning: 'This store needs X-Cashier-Id and X-Shift-Id on every write; `errors` names the missing header',
    tillDoes: 'Sign the cashier in on the till (the app sends who is at the till and the shift), then send it again',
  },
  request_aborted: {
    status: 400,
    retry: 'same',
    meaning: 'The till closed the request before its body arrived',
    tillDoes: 'Send it again (same Idempotency-Key)',
  },
  request_size_invalid: {
    status: 400,
    retry: 'same',
    meaning: 'The body was not as long as Content-Length said',
    tillDoes: 'Send it again (same Idempotency-Key)',
  },
  request_unreadable: { status: 400, retry: 'same', meaning: 'The body could not be read', tillDoes: 'Send it again (same Idempotency-Key)' },
  bad_request: { status: 400, retry: 'stop', meaning: 'The request could not be read for another reason', tillDoes: FIX },
  malformed_request: { status: 400, retry: 'stop', meaning: 'Not valid HTTP (answered by the server before any route)', tillDoes: FIX },
  request_timeout: { status: 408, retry: 'same', meaning: 'The request did not arrive in time', tillDoes: 'Send it again (same Idempotency-Key)' },
  payload_too_large: { status: 413, retry: 'stop', meaning: 'The body is larger than BODY_LIMIT_BYTES', tillDoes: FIX },
  unsupported_media_type: { status: 415, retry: 'stop', meaning: 'The body is not application/json', tillDoes: FIX },
  unsupported_encoding: { status: 415, retry: 'stop', meaning: 'The Content-Encoding or charset cannot be read', tillDoes: FIX },
  too_many_headers: { status: 431, retry: 'stop', meaning: 'More than MAX_HEADER_COUNT headers', tillDoes: FIX },
  headers_too_large: { status: 431, retry: 'stop', meaning: 'Headers larger than MAX_HEADER_BYTES (answered before the request has an id)', tillDoes: FIX },
  route_not_found: { status: 404, retry: 'stop', meaning: 'No such route', tillDoes: FIX },
  method_not_allowed: { status: 405, retry: 'stop', meaning: 'The path takes other methods; the Allow header lists them', tillDoes: FIX },
  // Who is calling (401, 403, 429)
  missing_token: { status: 401, retry: 'stop', meaning: 'No terminal credentials', tillDoes: 'Set up the terminal token (ask a manager)' },
  malformed_authorization: { status: 401, retry: 'stop', meaning: 'The Authorization header is not "Bearer <token>"', tillDoes: FIX },
  invalid_token: { status: 401, retry: 'stop', meaning: 'The token is unknown or revoked', tillDoes: 'Ask a manager: the terminal needs a new token' },
  invalid_client_certificate: {
    status: 401,
    retry: 'stop',
    meaning: 'The client certificate names no usable terminal, or several',
    tillDoes: 'Ask a manager: the terminal certificate needs replacing',
  },
  credentials_disagree: {
    status: 401,
    retry: 'stop',
    meaning: 'The token and the client certificate name different terminals',
    tillDoes: 'Ask a manager: the terminal is set up wrongly',
  },
  role_not_allowed: {
    status: 403,
    retry: 'stop',
    meaning: "The terminal's role may not use this route",
    tillDoes: 'Ask a manager (e.g. refunds need a manager terminal)',
  },
  cors_origin_not_allowed: {
    status: 403,
    retry: 'stop',
    meaning: 'A browser called from an origin not in CORS_ORIGINS',
    tillDoes: 'Ask IT to add the tablet app origin to CORS_ORIGINS',
  },
  rate_limited: { status: 429, retry: 'same', meaning: 'This terminal sent more than TERMINAL_RATE_LIMIT_PER_MINUTE requests this minute', tillDoes: RETRY },
  too_many_auth_failures: {
    status: 429,
    retry: 'stop',
    meaning: 'Too many failed authentications with this credential (or, without one, from this address) this minute',
    tillDoes: 'Check the token (ask a manager), then wait Retry-After',
  },
  // Idempotency
  idempotency_key_reused: {
    status: 422,
    retry: 'new',
    meaning: 'This Idempotency-Key was used for a different request',
    tillDoes: 'Use a new key for a new request',
  },
  idempotency_request_in_progress: { status: 409, retry: 'same', meaning: 'A request with this Idempotency-Key is still running', tillDoes: RETRY },
  // Customers and redemptions
  customer_not_found: {
    status: 404,
    retry: 'new',
    meaning: 'The loyalty programme has no such customer',
    tillDoes: 'Check the id or scan the QR code again; nothing was created',
  },
  customer_has_open_work: {
    status: 409,
    retry: 'new',
    meaning:
      'The customer cannot be deleted yet: points or money of theirs are in flight here (an open hold or coupon lock, a sale or refund being recorded, a write in the outbox, a dead letter); `open` names each, and nothing was deleted',
    tillDoes:
      'Finish what is named (pay with or void the hold, release the lock, wait for the outbox; a manager retries or discards a dead letter), then delete again',
  },
  qr_invalid: {
    status: 422,
    retry: 'new',
    meaning: "The QR payload is not a customer id followed by the customer's hash (after the last `:` or `|`, or else the last six digits)",
    tillDoes: 'Scan the QR code again',
  },
  proof_required: {
    status: 422,
    retry: 'new',
    meaning: 'REDEMPTION_PROOF needs the customer present: a QR code (hash) or an OTP',
    tillDoes: "Scan the customer's QR code",
  },
  channel_field_required: {
    status: 422,
    retry: 'new',
    meaning: "The loyalty account joins a customer's profiles by email or mobile, and the request did not carry it; `errors` names the field",
    tillDoes: 'Ask the customer for that field and send it with the request (on every request for this account)',
  },
  hash_invalid: {
    status: 422,
    retry: 'new',
    meaning: "The customer's hash is wrong or out of date (it changes with every transaction)",
    tillDoes: "Scan the customer's current QR code again",
  },
  otp_invalid: {
    status: 422,
    retry: 'new',
    meaning: 'The one-time password is wrong, used or expired',
    tillDoes: 'Ask the customer for the code again; after repeated failures start a new redemption',
  },
  otp_not_for_this_redemption: {
    status: 409,
    retry: 'new',
    meaning: 'The newest code sent to the customer was asked for another redemption (or lapsed)',
    tillDoes: NEW_REDEMPTION + ' (a new code is sent)',
  },
  otp_for_another_redemption: {
    status: 409,
    retry: 'new',
    meaning: 'A code given with a new redemption was asked for another one',
    tillDoes: 'Confirm the redemption the code was sent for, or start again without a code',
  },
  otp_pending_for_another_redemption: {
    status: 409,
    retry: 'new',
    meaning:
      "A code sent to this customer for another redemption is still out (`redemptionId` names it when it is this store's; `pendingUntil`, `Retry-After`: when it lapses)",
    tillDoes: 'Confirm that redemption with the code, or start again after Retry-After',
  },
  otp_not_checked: {
    status: 502,
    retry: 'stop',
    meaning: 'REDEMPTION_PROOF=otp but the loyalty account does not check OTPs',
    tillDoes: 'Ask a manager: a configuration problem',
  },
  rule_not_found: { status: 422, retry: 'new', meaning: "The redemption rule is not one of the programme's rules", tillDoes: 'Pick another reward' },
  insufficient_points: { status: 422, retry: 'new', meaning: 'The customer does not have enough points', tillDoes: 'Redeem fewer points' },
  too_many_open_redemptions: {
    status: 409,
    retry: 'new',
    meaning: 'This terminal has MAX_OPEN_REDEMPTIONS_PER_TERMINAL redemptions open',
    tillDoes: 'Complete or void an open redemption first',
  },
  redemption_cap_reached: {
    status: 409,
    retry: 'new',
    meaning: "The customer's points redeemed today (REDEMPTION_CAP_POINTS_PER_CUSTOMER_DAY, or the store's own cap) leave no room for this many",
    tillDoes: 'Redeem fewer points (the answer says how many are left), or none today',
  },
  stand_in_not_seen: {
    status: 409,
    retry: 'new',
    meaning: 'The loyalty service is out and the customer was not looked up at the till within STAND_IN_SEEN_MINUTES, so no balance can stand in',
    tillDoes: 'Sell without points, or look the customer up when the service is back',
  },
  stand_in_qr_required: {
    status: 422,
    retry: 'new',
    meaning: "The loyalty service is out: a stand-in redemption needs the customer's QR code scanned (customer id and hash)",
    tillDoes: "Scan the customer's QR code",
  },
  stand_in_points_only: {
    status: 422,
    retry: 'new',
    meaning: 'The loyalty service is out: a stand-in redemption is asked in points (money and rules cannot be priced offline)',
    tillDoes: 'Ask for points',
  },
  stand_in_otp_account: {
    status: 409,
    retry: 'new',
    meaning: 'The loyalty service is out and this account checks one-time codes, which cannot be checked offline: no stand-in',
    tillDoes: 'Sell without points',
  },
  stand_in_hold_unsettled: {
    status: 409,
    retry: 'new',
    meaning: "A hold of this customer's may have been placed (its outcome is unknown): no stand-in until it lapses",
    tillDoes: 'Sell without points',
  },
  stand_in_over_balance: {
    status: 422,
    retry: 'new',
    meaning: "The points asked are more than the customer's last known balance",
    tillDoes: 'Redeem fewer points',
  },
  stand_in_needs_approval: {
    status: 409,
    retry: 'same',
    meaning:
      'Over the stand-in floor limits (within the last known balance): the redemption `redemptionId` waits for a manager terminal of this store to approve it within STAND_IN_APPROVAL_MINUTES',
    tillDoes:
      'Have a manager approve redemption `redemptionId` (POST /redemptions/{id}/approve), then send the same request again with the same Idempotency-Key',
  },
  stand_in_not_pending: {
    status: 409,
    retry: 'stop',
    meaning: 'The redemption is not waiting for approval (already approved, voided, lapsed, or not a stand-in)',
    tillDoes: 'Nothing to approve: read the redemption',
  },
  stand_in_approval_expired: {
    status: 409,
    retry: 'new',
    meaning: 'STAND_IN_APPROVAL_MINUTES passed since the redemption asked for approval: it lapsed',
    tillDoes: 'The cashier starts the redemption again',
  },
  stand_in_customer_limit: {
    status: 409,
    retry: 'new',
    meaning: 'Over STAND_IN_MAX_POINTS_PER_CUSTOMER for this customer today',
    tillDoes: 'Redeem fewer points, or sell without points',
  },
  stand_in_store_limit: {
    status: 409,
    retry: 'new',
    meaning: "Over STAND_IN_MAX_POINTS_PER_STORE for this store's hour",
    tillDoes: 'Redeem fewer points, or sell without points',
  },
  redemption_not_found: { status: 404, retry: 'new', meaning: 'No such redemption in this store', tillDoes: NEW_REDEMPTION },
  redemption_not_awaiting_otp: {
    status: 409,
    retry: 'read',
    meaning: 'The redemption is not waiting for an OTP (`state` says what it is)',
    tillDoes: 'Go on from its state (held: pay with it)',
  },
  redemption_not_held: {
    status: 409,
    retry: 'new',
    meaning: 'The redemption is not held (expired, voided or redeemed; `state` says)',
    tillDoes: NEW_REDEMPTION,
  },
  redemption_expiring: {
    status: 409,
    retry: 'new',
    meaning: 'The hold has less than HOLD_SAFETY_MARGIN_SECONDS left',
    tillDoes: 'Void it and start a new redemption',
  },
  redemption_in_use: { status: 409, retry: 'new', meaning: 'The redemption is already used by another payment', tillDoes: NEW_REDEMPTION },
  redemption_customer_mismatch: {
    status: 409,
    retry: 'new',
    meaning: "The redemption is another customer's",
    tillDoes: 'Check the customer; start a new redemption for this one',
  },
  payment_in_progress: {
    status: 409,
    retry: 'read',
    meaning: 'A payment is using this redemption, so it cannot be voided',
    tillDoes: 'Wait for the payment; void the sale instead if needed',
  },
  redemption_busy: { status: 409, retry: 'same', meaning: 'Another request is changing this redemption right now', tillDoes: RETRY },
  redemption_exists: {
    status: 409,
    retry: 'new',
    meaning: 'A redemption with this id already exists (an internal clash)',
    tillDoes: 'Start the redemption again',
  },
  redemption_used: {
    status: 409,
    retry: 'new',
    meaning: "The redemption's hold was used by a payment, so it cannot be voided",
    tillDoes: 'Void the sale instead',
  },
  hold_state_unclear: {
    status: 503,
    retry: 'read',
    meaning: 'The loyalty service refused to release the hold but does not say it ended',
    tillDoes: 'Read the redemption (GET /redemptions/{id}) for its state; do not send the void again: the hold lapses at its expiry if it was not released',
  },
  otp_in_progress: {
    status: 409,
    retry: 'read',
    meaning: 'A code for this redemption is being checked right now',
    tillDoes: 'Read the redemption for its outcome',
  },
  hold_not_active: { status: 409, retry: 'new', meaning: 'The points hold is gone or no longer active upstream', tillDoes: NEW_REDEMPTION },
  hold_already_cancelled: { status: 409, retry: 'new', meaning: 'The points hold was already released', tillDoes: NEW_REDEMPTION },
  hold_released_late: {
    status: 409,
    retry: 'new',
    meaning: 'The points were held after the till stopped waiting (it was answered 202) and nobody came back for them, so they were released',
    tillDoes: NEW_REDEMPTION,
  },
  // Sales and refunds
  payment_totals_inconsistent: {
    status: 422,
    retry: 'stop',
    meaning: 'totalPaid is more than totalAmount less what the redemption and each locked coupon take off this basket (`errors` names both fields)',
    tillDoes: "Fix the till's totals: totalPaid is what was paid after discounts, coupons and points",
  },
  total_amount_required: {
    status: 422,
    retry: 'stop',
    meaning: 'A percentage redemption rule cannot be priced without the sale before discounts (`errors` names totalAmount)',
    tillDoes: 'Send totalAmount with the payment',
  },
  duplicate_transaction: {
    status: 409,
    retry: 'read',
    meaning:
      "The loyalty service already has a transaction under this id, and whose it is could not be told (a payment or refund is answered already_recorded or *_id_taken instead, from the upstream's record)",
    tillDoes: 'Look the id up (GET /payments/{id}) before anything else; do not ring it up again blindly',
  },
  payment_id_taken: {
    status: 409,
    retry: 'new',
    meaning: 'The payment id is already used by another sale (another store, customer or total); nothing was recorded for this one',
    tillDoes: 'Ring the sale up again with a new payment id',
  },
  refund_id_taken: {
    status: 409,
    retry: 'new',
    meaning: 'The refund id is already used by another refund; nothing was refunded',
    tillDoes: 'Refund again with a new refund id',
  },
  write_unconfirmed: {
    status: 409,
    retry: 'read',
    meaning:
      'The loyalty service already has a write under this payment or refund id that matches what its record shows of this one, but this BFF has no record of what only it could show (customer, coupon lock and codes, refund lines: lost with Redis, past its records, or of the previous release), so it may be this very write, recorded earlier; this request changed nothing, and asking again cannot tell more',
    tillDoes:
      "Do not send it again, with any key or id: look the sale up (GET /payments/{id}) or leave it to the day's reconciliation; ring it up anew only once it is known not to be this sale",
  },
  sale_already_voided: { status: 409, retry: 'stop', meaning: 'The sale was already voided', tillDoes: 'Nothing to do' },
  sale_void_in_progress: {
    status: 409,
    retry: 'new',
    meaning: 'A void of this sale is under way, or its outcome is not known yet',
    tillDoes: 'Send the same void again later with a new Idempotency-Key (this answer is kept for its key; the void is taken once per sale)',
  },
  sale_busy: { status: 503, retry: 'same', meaning: 'Another request is changing this sale right now', tillDoes: RETRY },
  original_transaction_not_found: { status: 404, retry: 'stop', meaning: 'The sale to refund is unknown', tillDoes: 'Check the payment id' },
  transaction_not_found: { status: 404, retry: 'stop', meaning: 'The transaction is unknown', tillDoes: 'Check the id' },
  refund_exceeds_remaining: {
    status: 422,
    retry: 'new',
    meaning: 'The refund is more than what is left to refund on the sale',
    tillDoes: 'Refund a smaller amount',
  },
  coupon_unavailable: {
    status: 422,
    retry: 'new',
    meaning: 'A coupon is unknown, not offered to this customer, or not usable now',
    tillDoes: 'Remove the coupon',
  },
  sale_not_found: {
    status: 404,
    retry: 'stop',
    meaning: "The sale was rung up in another store (refunds and voids stay in the sale's store unless RETURNS_AT_ANY_BRANCH)",
    tillDoes: 'Refund it at the store that sold it, or check the payment id',
  },
  sale_owner_unknown: {
    status: 409,
    retry: 'stop',
    meaning:
      "This BFF has no record of the sale (its data was lost, or the sale is older than SALE_RECORD_DAYS), and the loyalty service's record does not show which one store rang it up (it names no branch, or a branch that matches no store or several, or the sale is not among the customer's transactions read); nothing was done",
    tillDoes: 'Ask the store that rang it up to refund it, or a manager of a store allowed returns at any branch; check the customer and payment id',
  },
  sale_owner_unreadable: {
    status: 503,
    retry: 'same',
    meaning:
      "This BFF has no record of the sale, and the loyalty service's record that shows which store rang it up could not be read just now; nothing was done",
    tillDoes: RETRY,
  },
  payment_not_found: {
    status: 404,
    retry: 'stop',
    meaning: 'No such sale recorded for this store (yet)',
    tillDoes: 'Check the payment id; if it was queued, follow GET /outbox/{id}',
  },
  refund_not_found: {
    status: 404,
    retry: 'stop',
    meaning: 'No such refund recorded for this store (yet)',
    tillDoes: 'Check the refund id; if it was queued, follow GET /outbox/{id}',
  },
  retry_same_request: {
    status: 503,
    retry: 'same',
    meaning: 'The loyalty service may have applied the write, but it could not be recorded here',
    tillDoes: 'Send the SAME request again (same Idempotency-Key, same ids) after Retry-After; never start over',
  },
  kiosk_qr_off: {
    status: 403,
    retry: 'stop',
    meaning: "Kiosks do not show customers' QR codes here (KIOSK_QR is off, the default in production)",
    tillDoes: 'The customer shows the QR code from their own app',
  },
  event_maybe_recorded: {
    status: 503,
    retry: 'stop',
    meaning:
      "The loyalty service may have recorded the events (no answer in time, a failure after they were sent, or an answer that could not be read); events carry no id, so they are not sent again, and the day's reconciliation lists them",
    tillDoes: 'Do NOT send these events again, with any key: treat them as sent; the answer is final (no Retry-After)',
  },
  event_not_allowed: {
    status: 403,
    retry: 'stop',
    meaning: "A kiosk sent an event its store does not allow (the store's kioskEvents, else KIOSK_EVENTS)",
    tillDoes: 'Send only the allowed events from a kiosk; other events from a till',
  },
  // Coupons at the till
  coupon_refused: {
    status: 422,
    retry: 'new',
    meaning: "A coupon cannot be used for this sale; nothing was locked (`coupons` gives each code's verdict, `reason` the refusal of the codes together)",
    tillDoes: 'Remove the refused codes and lock again; if every code is usable on its own, lock fewer together',
  },
  coupon_not_found: { status: 422, retry: 'new', meaning: "The code is not one of the programme's coupons", tillDoes: 'Check the code; remove the coupon' },
  coupon_expired: { status: 422, retry: 'new', meaning: 'The coupon has expired', tillDoes: 'Remove the coupon' },
  coupon_not_started: { status: 422, retry: 'new', meaning: 'The coupon is not valid yet', tillDoes: 'Remove the coupon' },
  coupon_inactive: { status: 422, retry: 'new', meaning: 'The coupon is switched off', tillDoes: 'Remove the coupon' },
  coupon_exhausted: { status: 422, retry: 'new', meaning: 'The coupon has no uses left (overall or for this customer)', tillDoes: 'Remove the coupon' },
  coupon_locked: {
    status: 422,
    retry: 'new',
    meaning: 'Another sale holds the coupon locked',
    tillDoes: 'Finish or release the other sale, or remove the coupon',
  },
  coupon_not_offered: { status: 422, retry: 'new', meaning: 'The coupon is not offered to this customer', tillDoes: 'Remove the coupon' },
  coupon_minimum_not_met: {
    status: 422,
    retry: 'new',
    meaning: "The basket is below the coupon's minimum order value",
    tillDoes: 'Add to the basket or remove the coupon',
  },
  coupon_lock_not_found: { status: 404, retry: 'new', meaning: 'No such coupon lock in this store', tillDoes: 'Lock the coupons again' },
  coupon_lock_used: {
    status: 409,
    retry: 'new',
    meaning: 'The coupon lock was used by another payment (`state` says)',
    tillDoes: 'Lock the coupons again for this sale',
  },
  coupon_lock_in_use: { status: 409, retry: 'read', meaning: 'A payment is using this coupon lock right now', tillDoes: 'Wait for that payment' },
  coupon_lock_customer_mismatch: {
    status: 409,
    retry: 'new',
    meaning: "The coupon lock is another customer's",
    tillDoes: 'Check the customer; lock the coupons for this one',
  },
  coupon_lock_not_active: {
    status: 409,
    retry: 'new',
    meaning: 'The coupon lock is no longer active upstream (used, released or expired)',
    tillDoes: 'Lock the coupons again',
  },
  coupon_lock_busy: { status: 409, retry: 'same', meaning: 'Another request is changing this coupon lock right now', tillDoes: RETRY },
  coupon_lock_exists: {
    status: 409,
    retry: 'new',
    meaning: 'A coupon lock with this id already exists (an internal clash)',
    tillDoes: 'Lock the coupons again',
  },
  coupon_lock_basket_changed: {
    status: 422,
    retry: 'new',
    meaning: "The sale's totalAmount is smaller than the basket the coupons were locked for, or changes what a coupon is worth",
    tillDoes: 'Release the lock and lock the coupons again for this basket',
  },
  coupon_lock_unconfirmed: {
    status: 503,
    retry: 'stop',
    meaning: 'The loyalty service did not confirm the coupon lock',
    tillDoes: 'Do not lock the coupons again: a lock may stand upstream with no record here and lapses at its expiry; go on without them or ask a manager',
  },
  batch_job_not_found: { status: 404, retry: 'stop', meaning: 'No such batch job', tillDoes: 'Check the job id' },
  outbox_entry_not_found: { status: 404, retry: 'stop', meaning: 'No such queued write for this store', tillDoes: 'Check the outbox id' },
  dead_letter_maybe_recorded: {
    status: 409,
    retry: 'stop',
    meaning: 'The dead letter is events the loyalty service may have recorded (a delivery timed out or failed after sending); a copy could be recorded twice',
    tillDoes: 'Do not retry it: discard it (POST /outbox/dead/{id}/discard); the events may be on the customer already',
  },
  dead_letter_id_taken: {
    status: 409,
    retry: 'new',
    meaning:
      'An id the dead letter writes (a payment, refund or order id) was taken by another write since it died; sending it could be taken for that write. The dead letter stays',
    tillDoes: 'Check the other write under that id (GET /payments/{id}); discard the dead letter or ring the sale up again under a new id',
  },
  dead_letter_already_recorded: {
    status: 409,
    retry: 'read',
    meaning:
      'An id the dead letter writes is recorded for this store already, with nothing it asserted differing: an earlier attempt of it landed. Nothing was sent; the dead letter stays',
    tillDoes: 'Check the sale or refund (GET /payments/{id}), then discard the dead letter',
  },
  // The loyalty service and Redis
  upstream_unavailable: {
    status: 503,
    retry: 'same',
    meaning: 'The loyalty service is unreachable or failing',
    tillDoes: RETRY + '; writes without a redemption are queued (202) instead',
  },
  upstream_timeout: { status: 503, retry: 'same', meaning: 'The loyalty service did not answer in time', tillDoes: RETRY },
  upstream_circuit_open: { status: 503, retry: 'same', meaning: 'The loyalty service failed repeatedly; calls are paused', tillDoes: RETRY },
  upstream_busy: {
    status: 503,
    retry: 'same',
    meaning: "The loyalty service's published limit for this is used up for now (the BFF's budget, or its 429)",
    tillDoes: RETRY + '; writes without a redemption are queued (202) instead',
  },
  till_deadline_reached: {
    status: 503,
    retry: 'same',
    meaning: 'The time the till waits (Prefer: wait, or its store default) ran out before anything was sent to the loyalty service: nothing was done',
    tillDoes: RETRY,
  },
  answer_not_found: {
    status: 404,
    retry: 'read',
    meaning: "No answer is kept under this request id for this terminal (unknown, another terminal's, or older than 24 hours)",
    tillDoes:
      'Read the resource itself (e.g. GET /payments/{paymentId}); do not send the write again: its key replays the first answer only for 24 hours after the write, and later the write could run a second time',
  },
  answer_lost: {
    status: 503,
    retry: 'read',
    meaning: 'The request answered 202 never finished: the instance running it stopped before it had an outcome',
    tillDoes:
      'Read the resource (e.g. GET /payments/{paymentId}) for what was done; do not send the write again: its key no longer holds it back, so it could run a second time',
  },
  upstream_call_aborted: { status: 503, retry: 'same', meaning: 'The call to the loyalty service was cancelled (e.g. the till hung up)', tillDoes: RETRY },
  upstream_rejected: {
    status: 422,
    retry: 'stop',
    meaning: 'The loyalty service refused the request for another reason',
    tillDoes: 'Check the request; call support with the errorId if it persists',
  },
  upstream_not_found: { status: 404, retry: 'stop', meaning: 'The loyalty service has no such resource', tillDoes: 'Check the id' },
  upstream_invalid_response: { status: 502, retry: 'stop', meaning: 'The loyalty service answered something unusable', tillDoes: SUPPORT },
  loyalty_key_refused: {
    status: 503,
    retry: 'stop',
    meaning: 'The loyalty service refused every configured key of the middleware (codes 1000-1002): nothing was done',
    tillDoes: 'Ask a manager: the loyalty keys must be fixed; sales and refunds that can wait are queued (202) meanwhile',
  },
  upstream_auth_failed: {
    status: 502,
    retry: 'stop',
    meaning: "The loyalty service refused the middleware's keys",
    tillDoes: 'Ask a manager: a configuration problem',
  },
  redis_unavailable: { status: 503, retry: 'same', meaning: 'Redis is down: nothing that cannot be recorded is accepted', tillDoes: RETRY },
  identity_missing: { status: 500, retry: 'stop', meaning: 'A route was reached without authentication (a bug)', tillDoes: SUPPORT },
  internal_error: { status: 500, retry: 'stop', meaning: 'An unexpected error', tillDoes: SUPPORT },
} as const satisfies Record<string, CatalogueEntry>;

/** A code the BFF answers with: one not in the catalogue does not compile. */
export type ProblemCode = keyof typeof PROBLEM_CATALOGUE;

/** The status the catalogue gives a code. */
export type StatusOf<C extends ProblemCode> = (typeof PROBLEM_CATALOGUE)[C]['status'];

/** The codes answered with one status (e.g. authentication's 401 refusals). */
export type ProblemCodeWithStatus<S extends ErrorStatus> = { [C in ProblemCode]: StatusOf<C> extends S ? C : never }[ProblemCode];

/** The catalogue's rows in its order, each with its code. */
export function catalogueEntries(): (CatalogueEntry & { code: ProblemCode })[] {
  return (Object.keys(PROBLEM_CATALOGUE) as ProblemCode[]).map((code) => ({ code, ...PROBLEM_CATALOGUE[code] }));
}
