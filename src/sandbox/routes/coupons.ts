import type { Router } from 'express';
import { OPERATIONS } from '../../contract';
import type { SandboxContext } from '../context';
import { mountOperation } from '../http/operation';
import { customerIdParam } from '../http/validate';
import { listCoupons } from '../operations/coupons';

export function couponRoutes(router: Router, ctx: SandboxContext): void {
  mountOperation(router, ctx, OPERATIONS.coupons, (req, account) => listCoupons(ctx, account, customerIdParam(req)));
}
