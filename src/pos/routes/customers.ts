import { RequestHandler, Router } from 'express';
import { parseOrThrow } from '../../platform/validation';
import { requireRole } from '../auth';
import type { PosDeps } from '../deps';
import { callContext } from '../http/context';
import { RegisterCustomerBody } from '../customer-schemas';
import { customerHash, customerSummary, deleteCustomer, registerCustomer } from '../operations/customers';
import { CustomerIdParam, TierQuery } from '../schemas';
import { audited } from '../audit/record';

export function customerRoutes(deps: PosDeps): Router {
  const router = Router();

  router.get('/customers/:id', requireRole('cashier', 'manager'), async (req, res) => {
    const { id } = parseOrThrow(CustomerIdParam, req.params, 'path');
    const { lang } = parseOrThrow(TierQuery, req.query, 'query');
    res.json(await customerSummary(deps, callContext(req, res), id, lang));
  });

  // Sign-up at the till: create the profile, or update it (idempotent by customer id).
  router.put('/customers/:id', requireRole('cashier', 'manager'), async (req, res) => {
    const { id } = parseOrThrow(CustomerIdParam, req.params, 'path');
    const body = parseOrThrow(RegisterCustomerBody, req.body ?? {});
    res.json(await audited(deps, callContext(req, res), 'customer_registration', { customerId: id }, (ctx) => registerCustomer(deps, ctx, id, body)));
  });

  router.get('/customers/:id/hash', requireRole('kiosk'), async (req, res) => {
    const { id } = parseOrThrow(CustomerIdParam, req.params, 'path');
    res.json(await customerHash(deps, callContext(req, res), id));
  });

  const remove: RequestHandler = async (req, res) => {
    const { id } = parseOrThrow(CustomerIdParam, req.params, 'path');
    res.json(await audited(deps, callContext(req, res), 'customer_deletion', { customerId: id }, (ctx) => deleteCustomer(deps, ctx, id)));
  };
  router.delete('/customers/:id', requireRole('manager'), remove);
  router.post('/customers/:id/delete', requireRole('manager'), remove);

  return router;
}
