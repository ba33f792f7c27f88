import { z } from 'zod';
import { one, routesGiven, TILL } from '../http/route';
import { COUPON_LOCK_ID, couponExamples } from './examples';
import { getCouponLock, lockCoupons, releaseCouponLock } from './lock-operations';
import * as cs from './schemas';
import { checkCoupons } from './verdicts';

import type { CouponLockDeps } from './lock-operations';

const route = routesGiven<CouponLockDeps>();

const lockId = z.object({ id: cs.CouponLockIdParam.shape.id.meta({ description: 'The coupon lock id from POST /coupon-locks', example: COUPON_LOCK_ID }) });

/** Coupons at the till: check codes for a basket, lock them for a sale, release them. */
export const COUPON_ROUTES = [
  route({
    method: 'post',
    path: '/coupons/validate',
    operationId: 'checkCoupons',
    tag: 'Payments',
    roles: TILL,
    summary: 'Check coupon codes for a basket: what each is worth, or why not',
    description:
      'Nothing is locked. One verdict per code named, in the order given; each is checked for this customer and basket total, and a code named twice ' +
      "for two uses (a copy beyond the coupon's or the customer's limit is refused). `reason` says why a code is refused.",
    body: { schema: cs.CouponCheckBody, examples: one('Two codes for a 150.00 basket', couponExamples.check) },
    success: { status: 200, description: 'One verdict per code', schema: cs.CouponChecksSchema, example: couponExamples.checks },
    callsLoyalty: true,
    readsOnly: true,
    codes: ['customer_not_found'],
    handle: (deps, ctx, { body }) => checkCoupons(deps, ctx, body),
  }),
  route({
    method: 'post',
    path: '/coupon-locks',
    operationId: 'lockCoupons',
    idempotencyKey: 'required',
    tag: 'Payments',
    roles: TILL,
    needsRedis: true,
    summary: 'Lock coupons for this sale (all or none)',
    description:
      'Locks the codes with the loyalty service so no other till can use them, until a payment names the lock (`couponLockId`), the till releases it, ' +
      "or nobody pays in time (then the BFF releases it, HOLD_SAFETY_MARGIN_SECONDS before the loyalty service's lock ends). " +
      "If one code cannot be used, nothing is locked: 422 `coupon_refused` with each code's verdict in `coupons` (as POST /coupons/validate gives them) " +
      "and the lock's own refusal in `reason`. When no verdict is refused, the codes were refused together (or changed in between): `reason` is the only explanation.",
    body: { schema: cs.CouponCheckBody, examples: one('Lock WELCOME10 for a 150.00 basket', couponExamples.lock) },
    success: { status: 201, description: 'The lock', schema: cs.CouponLockViewSchema, example: couponExamples.locked, location: true },
    callsLoyalty: true,
    codes: ['customer_not_found', 'channel_field_required', 'coupon_refused'],
    handle: (deps, ctx, { body }) => lockCoupons(deps, ctx, body),
  }),
  route({
    method: 'get',
    path: '/coupon-locks/:id',
    operationId: 'getCouponLock',
    tag: 'Payments',
    roles: TILL,
    needsRedis: true,
    summary: "State of a coupon lock (this store's)",
    params: lockId,
    success: { status: 200, description: 'The lock', schema: cs.CouponLockViewSchema, example: couponExamples.locked },
    callsLoyalty: false,
    codes: ['coupon_lock_not_found'],
    handle: (deps, ctx, { params }) => getCouponLock(deps, ctx, params.id),
  }),
  route({
    method: 'post',
    path: '/coupon-locks/:id/release',
    operationId: 'releaseCouponLock',
    tag: 'Payments',
    roles: TILL,
    needsRedis: true,
    summary: 'Release the coupons (the sale is voided or goes ahead without them)',
    description: 'Releasing a released (or abandoned) lock answers it again; a used lock is 409 `coupon_lock_used`.',
    params: lockId,
    success: {
      status: 200,
      description: 'The lock, now `released`',
      schema: cs.CouponLockViewSchema,
      example: { ...couponExamples.locked, state: 'released', secondsLeft: 0 },
    },
    callsLoyalty: true,
    codes: ['coupon_lock_not_found', 'coupon_lock_in_use', 'coupon_lock_used', 'coupon_lock_busy', 'retry_same_request'],
    handle: (deps, ctx, { params }) => releaseCouponLock(deps, ctx, params.id),
  }),
];
