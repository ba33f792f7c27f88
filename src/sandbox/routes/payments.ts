import type { Router } from 'express';
import { OPERATIONS, PaymentRequest } from '../../contract';
import type { SandboxContext } from '../context';
import { mountOperation } from '../http/operation';
import { parseBody } from '../http/validate';
import { processPayment } from '../operations/payments';

export function paymentRoutes(router: Router, ctx: SandboxContext): void {
  mountOperation(router, ctx, OPERATIONS.payment, (req, account) => processPayment(ctx, account, parseBody(PaymentRequest, req)));
}
