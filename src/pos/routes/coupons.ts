import { Router } from 'express';
import { parseOrThrow } from '../../platform/validation';
import { requireRole } from '../auth';
import { CouponCheckBody, CouponLockIdParam, EarnPreviewBody, RefundIdParam } from '../coupon-schemas';
import type { PosDeps } from '../deps';
import { callContext } from '../http/context';
import { getCouponLock, lockCoupons, releaseCouponLock } from '../operations/coupon-locks';
import { checkCoupons } from '../operations/coupon-verdicts';
import { previewEarn } from '../operations/earn-preview';
import { readPayment, readRefund } from '../operations/sale-readback';
import { PaymentIdParam } from '../schemas';
import { audited } from '../audit/record';

/** Coupons at the till, the earn preview, the redemption rules, and reading a sale back. */
export function couponRoutes(deps: PosDeps): Router {
  const router = Router();
  const tillRoles = requireRole('cashier', 'manager');

  router.post('/coupons/validate', tillRoles, async (req, res) => {
    res.json(await checkCoupons(deps, callContext(req, res), parseOrThrow(CouponCheckBody, req.body)));
  });

  router.post('/coupon-locks', tillRoles, async (req, res) => {
    const body = parseOrThrow(CouponCheckBody, req.body);
    const view = await audited(deps, callContext(req, res), 'coupon_lock', { customerId: body.customerId }, (ctx) => lockCoupons(deps, ctx, body));
    res.status(201).location(`/pos/v1/coupon-locks/${view.id}`).json(view);
  });

  router.get('/coupon-locks/:id', tillRoles, async (req, res) => {
    const { id } = parseOrThrow(CouponLockIdParam, req.params, 'path');
    res.json(await getCouponLock(deps, callContext(req, res), id));
  });

  router.post('/coupon-locks/:id/release', tillRoles, async (req, res) => {
    const { id } = parseOrThrow(CouponLockIdParam, req.params, 'path');
    res.json(await releaseCouponLock(deps, callContext(req, res), id));
  });

  router.post('/earn-preview', tillRoles, async (req, res) => {
    res.json(await previewEarn(deps, callContext(req, res), parseOrThrow(EarnPreviewBody, req.body)));
  });

  router.get('/redemption-options', tillRoles, async (req, res) => {
    res.json(await deps.redemptionOptions.get(callContext(req, res).requestId));
  });

  router.get('/payments/:paymentId', tillRoles, async (req, res) => {
    const { paymentId } = parseOrThrow(PaymentIdParam, req.params, 'path');
    res.json(await readPayment(deps, callContext(req, res), paymentId));
  });

  router.get('/refunds/:refundId', tillRoles, async (req, res) => {
    const { refundId } = parseOrThrow(RefundIdParam, req.params, 'path');
    res.json(await readRefund(deps, callContext(req, res), refundId));
  });

  return router;
}
