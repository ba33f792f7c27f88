import { Router } from 'express';
import { parseOrThrow } from '../../platform/validation';
import { requireRole } from '../auth';
import type { PosDeps } from '../deps';
import { callContext } from '../http/context';
import { statusFor } from '../outbox/forward';
import { recordPayment } from '../operations/payments';
import { refund, voidSale } from '../operations/refunds';
import { PaymentBody, PaymentIdParam, RefundBody, SaleVoidBody } from '../schemas';

export function paymentRoutes(deps: PosDeps): Router {
  const router = Router();
  const refundRoles = deps.settings.refundRequiresManager ? requireRole('manager') : requireRole('cashier', 'manager');

  router.post('/payments', requireRole('cashier', 'manager'), async (req, res) => {
    const body = parseOrThrow(PaymentBody, req.body);
    const view = await recordPayment(deps, callContext(req, res), body);
    res.status(statusFor(view, 201)).json(view);
  });

  router.post('/payments/:paymentId/void', requireRole('manager'), async (req, res) => {
    const { paymentId } = parseOrThrow(PaymentIdParam, req.params, 'path');
    const body = parseOrThrow(SaleVoidBody, req.body);
    const view = await voidSale(deps, callContext(req, res), paymentId, body);
    res.status(statusFor(view, 200)).json(view);
  });

  router.post('/refunds', refundRoles, async (req, res) => {
    const body = parseOrThrow(RefundBody, req.body);
    const view = await refund(deps, callContext(req, res), body);
    res.status(statusFor(view, 201)).json(view);
  });

  return router;
}
