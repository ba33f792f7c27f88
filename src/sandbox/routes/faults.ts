import type { Request, RequestHandler, Response, Router } from 'express';
import type { Operation } from '../../contract';
import type { SandboxContext } from '../context';
import { adminAccount } from '../http/admin-auth';
import { renderLoyaltyError } from '../errors';
import { clearFaults, faultFor, readFaults, replaceFaults, type FaultDecision } from '../operations/faults';

// Unref'd: a late answer still pending does not keep a stopping process alive.
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms).unref());

/**
 * Applies the fault rules before a v4.0 operation runs (after the key
 * checks), so an injected error or a dropped connection means nothing happened;
 * or, for a rule with `after`, to the operation's answer, so its write is
 * applied and the caller learns it late, never, wrongly or unreadably.
 */
function injectFaults(ctx: SandboxContext): RequestHandler {
  return async (req, res, next) => {
    const op = res.locals.operation as Operation | undefined;
    const fault = op && faultFor(ctx, op.id);
    if (!op || !fault) return next();
    // Tells a developer reading the response that the sandbox did this on purpose.
    res.setHeader('X-Sandbox-Fault', op.id);
    if (fault.after) {
      afterOperation(req, res, fault);
      return next();
    }
    if (fault.latencyMs > 0) await sleep(fault.latencyMs);
    if (fault.drop) {
      req.socket.destroy();
      return;
    }
    next(fault.error);
  };
}

/** Holds the operation's answer (or refusal) back and sends the fault's instead, once the latency has passed. */
function afterOperation(req: Request, res: Response, fault: FaultDecision): void {
  const json = res.json.bind(res);
  res.json = (body: unknown) => {
    void sleep(fault.latencyMs).then(() => {
      if (fault.drop) req.socket.destroy();
      else if (fault.error) renderLoyaltyError(fault.error, req, Object.assign(res, { json }));
      else if (fault.brokenBody) res.type('application/json').end(JSON.stringify(body ?? {}).slice(0, -1));
      else json(body);
    });
    return res;
  };
}

/** `/_sandbox/faults`: sandbox-wide fault rules, guarded like every admin route (any account's apikey and its secretkey). */
export function faultRoutes(router: Router, ctx: SandboxContext): void {
  ctx.beforeOperation.push(injectFaults(ctx));

  router.get('/faults', (req, res) => {
    adminAccount(ctx.store, req);
    res.json(readFaults(ctx));
  });

  router.put('/faults', (req, res) => {
    adminAccount(ctx.store, req);
    res.json(replaceFaults(ctx, req.body));
  });

  router.delete('/faults', (req, res) => {
    adminAccount(ctx.store, req);
    res.json(clearFaults(ctx));
  });
}
