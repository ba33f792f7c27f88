import type { Router } from 'express';
import { OPERATIONS, RefundRequest } from '../../contract';
import type { SandboxContext } from '../context';
import { mountOperation } from '../http/operation';
import { parseBody } from '../http/validate';
import { processRefund } from '../operations/refunds';

export function refundRoutes(router: Router, ctx: SandboxContext): void {
  mountOperation(router, ctx, OPERATIONS.refund, (req, account) => processRefund(ctx, account, parseBody(RefundRequest, req)));
}
