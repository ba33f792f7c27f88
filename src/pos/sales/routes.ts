import { Router } from 'express';
import { parseOrThrow } from '../../platform/validation';
import { requireRole } from '../auth';
import type { PosDeps } from '../deps';
import { callContext } from '../http/context';
import { statusFor } from '../outbox/forward';
import { completeSale, refundSale, voidCompletedSale } from './operations';
import { ReceiptQuery } from './receipt-query';
import { PaymentBody, PaymentIdParam, RefundBody, SaleVoidBody } from '../schemas';

export function paymentRoutes(deps: PosDeps): Router {
  const router = Router();
  const refundRoles = deps.settings.refundRequiresManager ? requireRole('manager') : requireRole('cashier', 'manager');

  router.post('/payments', requireRole('cashier', 'manager'), async (req, res) => {
    const body = parseOrThrow(PaymentBody, req.body);
    const { receipt } = parseOrThrow(ReceiptQuery, req.query, 'query');
    const view = await completeSale(deps, callContext(req, res), body, receipt);
    res.status(statusFor(view, 201)).json(view);
  });

  router.post('/payments/:paymentId/void', requireRole('manager'), async (req, res) => {
    const { paymentId } = parseOrThrow(PaymentIdParam, req.params, 'path');
    const body = parseOrThrow(SaleVoidBody, req.body);
    const { receipt } = parseOrThrow(ReceiptQuery, req.query, 'query');
    const view = await voidCompletedSale(deps, callContext(req, res), paymentId, body, receipt);
    res.status(statusFor(view, 200)).json(view);
  });

  router.post('/refunds', refundRoles, async (req, res) => {
    const body = parseOrThrow(RefundBody, req.body);
    const { receipt } = parseOrThrow(ReceiptQuery, req.query, 'query');
    const view = await refundSale(deps, callContext(req, res), body, receipt);
    res.status(statusFor(view, 201)).json(view);
  });

  return router;
}
