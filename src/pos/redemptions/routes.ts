import { z } from 'zod';
import { one, routesGiven, TILL } from '../http/route';
import { REDEMPTION_ID, redemptionExamples } from './examples';
import { RedemptionIdParam, RedemptionOptionsSchema, RedemptionViewSchema, StartRedemptionBody, SubmitOtpBody } from './schemas';
import { getRedemption } from './redemption-deps';
import { startRedemption } from './start';
import { approveStandIn, type StandInDeps } from './stand-in';
import { submitOtp } from './otp-step';
import { voidRedemption } from './void';

import type { RedemptionOptionsCache } from './options';

const route = routesGiven<StandInDeps & { redemptionOptions: RedemptionOptionsCache }>();

const redemptionId = z.object({ id: RedemptionIdParam.shape.id.meta({ description: 'The redemption id from POST /redemptions', example: REDEMPTION_ID }) });

/** Redemptions: the rules for the till's buttons, then hold points (with the OTP step), read, void. */
export const REDEMPTION_ROUTES = [
  route({
    method: 'post',
    path: '/redemptions',
    operationId: 'startRedemption',
    idempotencyKey: 'required',
    tag: 'Redemptions',
    roles: TILL,
    needsRedis: true,
    summary: 'Start a redemption: hold points by amount, points or rule',
    description:
      "Places a hold on the customer's points. With OTP on and no `otp` given, the customer is sent a code and the redemption is `otp_required`: " +
      'send the code to POST /redemptions/{id}/otp. Name the redemption in POST /payments before `expiresAt` (less a safety margin). ' +
      'A terminal may have at most MAX_OPEN_REDEMPTIONS_PER_TERMINAL redemptions open (`otp_required` or `held`) at once; one more is 409 `too_many_open_redemptions`. ' +
      "A customer may redeem at most REDEMPTION_CAP_POINTS_PER_CUSTOMER_DAY points a day across the stores (or the store's own cap): a start that would go over it is 409 `redemption_cap_reached`, before anything is asked of the loyalty service. " +
      'With STAND_IN on for the store and the loyalty service certainly out of reach, a customer looked up within STAND_IN_SEEN_MINUTES whose QR code was scanned ' +
      'may spend points up to their last known balance and the floor limits: 201 `stand_in` (no hold; `standIn.cashierMessage` says so), redeemed once the service is back.',
    body: {
      schema: StartRedemptionBody,
      examples: {
        byPoints: { summary: 'Hold 200 points (customer id and hash)', value: redemptionExamples.startByPoints },
        byQr: { summary: 'Hold 20.00 of value, customer from a scanned QR code', value: redemptionExamples.startByQr },
        withOtp: { summary: 'With the OTP the customer read out', value: redemptionExamples.startWithOtp },
      },
    },
    success: {
      status: 201,
      description: 'The redemption: `held`, or `otp_required`',
      schema: RedemptionViewSchema,
      example: redemptionExamples.redemptionHeld,
      location: true,
    },
    callsLoyalty: true,
    codes: [
      'customer_not_found',
      'otp_for_another_redemption',
      'otp_pending_for_another_redemption',
      'too_many_open_redemptions',
      'redemption_cap_reached',
      'channel_field_required',
      'hash_invalid',
      'insufficient_points',
      'otp_invalid',
      'proof_required',
      'qr_invalid',
      'rule_not_found',
      'otp_not_checked',
      'retry_same_request',
      'hold_released_late',
      'stand_in_not_seen',
      'stand_in_qr_required',
      'stand_in_points_only',
      'stand_in_otp_account',
      'stand_in_hold_unsettled',
      'stand_in_over_balance',
      'stand_in_customer_limit',
      'stand_in_store_limit',
      'stand_in_needs_approval',
    ],
    handle: (deps, ctx, { body }) => startRedemption(deps, ctx, body),
  }),
  route({
    method: 'post',
    path: '/redemptions/:id/otp',
    operationId: 'submitRedemptionOtp',
    idempotencyKey: 'required',
    tag: 'Redemptions',
    roles: TILL,
    needsRedis: true,
    summary: 'Place the hold with the OTP the customer read out',
    params: redemptionId,
    body: { schema: SubmitOtpBody, examples: one('The six digits', redemptionExamples.submitOtp) },
    success: { status: 200, description: 'The redemption, now `held`', schema: RedemptionViewSchema, example: redemptionExamples.redemptionHeld },
    callsLoyalty: true,
    codes: [
      'redemption_not_found',
      'otp_not_for_this_redemption',
      'redemption_not_awaiting_otp',
      'otp_in_progress',
      'redemption_cap_reached',
      'hash_invalid',
      'otp_invalid',
      'proof_required',
      'retry_same_request',
      'hold_released_late',
    ],
    handle: (deps, ctx, { params, body }) => submitOtp(deps, ctx, params.id, body.otp),
  }),
  route({
    method: 'get',
    path: '/redemptions/:id',
    operationId: 'getRedemption',
    tag: 'Redemptions',
    roles: TILL,
    needsRedis: true,
    summary: 'State of a redemption and seconds left on its hold',
    params: redemptionId,
    success: { status: 200, description: 'The redemption', schema: RedemptionViewSchema, example: redemptionExamples.redemptionHeld },
    callsLoyalty: false,
    codes: ['redemption_not_found'],
    handle: (deps, ctx, { params }) => getRedemption(deps, ctx, params.id),
  }),
  route({
    method: 'post',
    path: '/redemptions/:id/void',
    operationId: 'voidRedemption',
    tag: 'Redemptions',
    roles: TILL,
    needsRedis: true,
    summary: 'Release the hold (the sale goes ahead without points, or is abandoned)',
    description: 'A `stand_in` redemption (no hold) not yet paid is voided at once and its points given back to the floor limits.',
    params: redemptionId,
    success: {
      status: 200,
      description: 'The redemption, now `voided`',
      schema: RedemptionViewSchema,
      example: { ...redemptionExamples.redemptionHeld, state: 'voided', secondsLeft: 0 },
    },
    callsLoyalty: true,
    codes: ['redemption_not_found', 'payment_in_progress', 'redemption_not_held', 'redemption_used', 'redemption_busy', 'retry_same_request'],
    handle: (deps, ctx, { params }) => voidRedemption(deps, ctx, params.id),
  }),
  route({
    method: 'post',
    path: '/redemptions/:id/approve',
    operationId: 'approveStandInRedemption',
    tag: 'Redemptions',
    roles: ['manager'],
    needsRedis: true,
    summary: 'Approve a stand-in over the floor limits (manager terminal of the same store)',
    description:
      'A start over the stand-in floor limits (within the last known balance) answers 409 `stand_in_needs_approval` naming the waiting redemption. ' +
      'A manager terminal of the same store approves it here, once, within STAND_IN_APPROVAL_MINUTES: it becomes `stand_in`, and the cashier sends the same start again to get it.',
    params: redemptionId,
    success: {
      status: 200,
      description: 'The redemption, now `stand_in` (approved)',
      schema: RedemptionViewSchema,
      example: { ...redemptionExamples.redemptionHeld, state: 'stand_in', secondsLeft: 0 },
    },
    callsLoyalty: false,
    codes: ['redemption_not_found', 'stand_in_not_pending', 'stand_in_approval_expired', 'redemption_cap_reached'],
    handle: (deps, ctx, { params }) => approveStandIn(deps, ctx, params.id),
  }),
  route({
    method: 'get',
    path: '/redemption-options',
    operationId: 'listRedemptionOptions',
    tag: 'Redemptions',
    roles: TILL,
    summary: "The account's redemption rules, for the till's buttons",
    description: 'Cached by each instance for REDEMPTION_OPTIONS_TTL_SECONDS, then refreshed in the background. Start one with POST /redemptions `{ ruleId }`.',
    success: { status: 200, description: 'Factor and rules', schema: RedemptionOptionsSchema, example: redemptionExamples.options },
    callsLoyalty: true,
    codes: [],
    handle: (deps, ctx) => deps.redemptionOptions.get(ctx.requestId),
  }),
];
