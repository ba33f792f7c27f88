import { Router } from 'express';
import { parseOrThrow } from '../../platform/validation';
import { requireRole } from '../auth';
import type { PosDeps } from '../deps';
import { callContext } from '../http/context';
import { getRedemption, startRedemption, submitOtp, voidRedemption } from '../operations/redemptions';
import { RedemptionIdParam, StartRedemptionBody, SubmitOtpBody } from '../schemas';
import { audited } from '../audit/record';
import { startSubject } from '../audit/subjects';

export function redemptionRoutes(deps: PosDeps): Router {
  const router = Router();
  const tillRoles = requireRole('cashier', 'manager');

  router.post('/redemptions', tillRoles, async (req, res) => {
    const body = parseOrThrow(StartRedemptionBody, req.body);
    const view = await audited(deps, callContext(req, res), 'redemption_start', startSubject(body), (ctx) => startRedemption(deps, ctx, body));
    res.status(201).location(`/pos/v1/redemptions/${view.id}`).json(view);
  });

  router.post('/redemptions/:id/otp', tillRoles, async (req, res) => {
    const { id } = parseOrThrow(RedemptionIdParam, req.params, 'path');
    const { otp } = parseOrThrow(SubmitOtpBody, req.body);
    res.json(await submitOtp(deps, callContext(req, res), id, otp));
  });

  router.get('/redemptions/:id', tillRoles, async (req, res) => {
    const { id } = parseOrThrow(RedemptionIdParam, req.params, 'path');
    res.json(await getRedemption(deps, callContext(req, res), id));
  });

  router.post('/redemptions/:id/void', tillRoles, async (req, res) => {
    const { id } = parseOrThrow(RedemptionIdParam, req.params, 'path');
    res.json(await voidRedemption(deps, callContext(req, res), id));
  });

  return router;
}
