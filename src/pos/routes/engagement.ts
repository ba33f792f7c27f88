import { Router } from 'express';
import { parseOrThrow } from '../../platform/validation';
import { requireRole } from '../auth';
import type { PosDeps } from '../deps';
import { callContext } from '../http/context';
import { recordEventsOrQueue } from '../operations/events';
import { orderBatchStatus, uploadOrdersOrQueue } from '../operations/orders';
import { statusFor } from '../outbox/forward';
import { BatchOrdersBody, EventsBody, JobIdParam } from '../schemas';
import { audited } from '../audit/record';

/** Events from tills and kiosks, and the end-of-day order upload. */
export function engagementRoutes(deps: PosDeps): Router {
  const router = Router();

  router.post('/events', requireRole('cashier', 'manager', 'kiosk'), async (req, res) => {
    const body = parseOrThrow(EventsBody, req.body);
    const view = await audited(deps, callContext(req, res), 'events', { customerId: body.customerId, names: Object.keys(body.events) }, (ctx) =>
      recordEventsOrQueue(deps, ctx, body),
    );
    res.status(statusFor(view, 200)).json(view);
  });

  router.post('/orders/batch', requireRole('cashier', 'manager'), async (req, res) => {
    const body = parseOrThrow(BatchOrdersBody, req.body);
    res.status(202).json(await uploadOrdersOrQueue(deps, callContext(req, res), body));
  });

  router.get('/orders/batch/:jobId', requireRole('cashier', 'manager'), async (req, res) => {
    const { jobId } = parseOrThrow(JobIdParam, req.params, 'path');
    res.json(await orderBatchStatus(deps, callContext(req, res), jobId));
  });

  return router;
}
