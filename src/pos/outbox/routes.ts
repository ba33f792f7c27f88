import { Request, Response, Router } from 'express';
import { parseOrThrow } from '../../platform/validation';
import { requireRole } from '../auth';
import type { PosDeps } from '../deps';
import { callContext } from '../http/context';
import { discardDeadLetter, listDeadLetters, outboxStatus, retryDeadLetter } from './operations';
import { DeadLetterQuery, OutboxIdParam } from './schemas';

/** Queued writes: their state for the till that made them (its store), and the dead letters for managers. */
export function outboxRoutes(deps: PosDeps): Router {
  const router = Router();
  const manager = requireRole('manager');

  router.get('/outbox/dead', manager, async (req, res) => {
    const { limit } = parseOrThrow(DeadLetterQuery, req.query, 'query');
    res.json(await listDeadLetters(deps, callContext(req, res), limit));
  });

  router.post('/outbox/dead/:id/retry', manager, async (req, res) => {
    const { id } = parseOrThrow(OutboxIdParam, req.params, 'path');
    res.json(await retryDeadLetter(deps, callContext(req, res), id));
  });

  const discard = async (req: Request, res: Response) => {
    const { id } = parseOrThrow(OutboxIdParam, req.params, 'path');
    res.json(await discardDeadLetter(deps, callContext(req, res), id));
  };
  router.post('/outbox/dead/:id/discard', manager, discard);
  router.delete('/outbox/dead/:id', manager, discard);

  router.get('/outbox/:id', requireRole('cashier', 'manager', 'kiosk'), async (req, res) => {
    const { id } = parseOrThrow(OutboxIdParam, req.params, 'path');
    res.json(await outboxStatus(deps, callContext(req, res), id));
  });

  return router;
}
