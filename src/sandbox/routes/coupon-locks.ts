import type { Router } from 'express';
import { CouponBurnRequest, CouponsValidateRequest, CouponValidateRequest, OPERATIONS } from '../../contract';
import type { SandboxContext } from '../context';
import { mountOperation } from '../http/operation';
import { parseBody, pathParam } from '../http/validate';
import { burnCoupons, releaseCouponLock, validateCoupon, validateCoupons } from '../operations/coupon-locks';

export function couponLockRoutes(router: Router, ctx: SandboxContext): void {
  mountOperation(router, ctx, OPERATIONS.couponsValidate, (req, account) => validateCoupons(ctx, account, parseBody(CouponsValidateRequest, req)));
  mountOperation(router, ctx, OPERATIONS.couponBurn, (req, account) => burnCoupons(ctx, account, parseBody(CouponBurnRequest, req)));
  mountOperation(router, ctx, OPERATIONS.couponValidate, (req, account) =>
    validateCoupon(ctx, account, pathParam(req, 'code'), parseBody(CouponValidateRequest, req)),
  );
  mountOperation(router, ctx, OPERATIONS.couponRelease, (req, account) => releaseCouponLock(ctx, account, pathParam(req, 'lockReference')));
}
