import type { Router } from 'express';
import { OPERATIONS, RedeemRequest, RefundRequest } from '../../contract';
import type { SandboxContext } from '../context';
import { mountOperation } from '../http/operation';
import { parseBody } from '../http/validate';
import { redeemPoints } from '../operations/redeem';
import { processRefund } from '../operations/refunds';

export function refundRoutes(router: Router, ctx: SandboxContext): void {
  mountOperation(router, ctx, OPERATIONS.refund, (req, account) => processRefund(ctx, account, parseBody(RefundRequest, req)));
  mountOperation(router, ctx, OPERATIONS.redeem, (req, account) => redeemPoints(ctx, account, parseBody(RedeemRequest, req)));
}
