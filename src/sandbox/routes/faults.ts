import type { RequestHandler, Router } from 'express';
import type { Operation } from '../../contract';
import type { SandboxContext } from '../context';
import { adminAccount } from '../http/admin-auth';
import { clearFaults, faultFor, readFaults, replaceFaults } from '../operations/faults';

/**
 * Applies the fault rules before a v4.0 operation runs (after the key
 * checks), so an injected error or a dropped connection means nothing happened.
 */
function injectFaults(ctx: SandboxContext): RequestHandler {
  return async (req, res, next) => {
    const op = res.locals.operation as Operation | undefined;
    const fault = op && faultFor(ctx, op.id);
    if (!op || !fault) return next();
    // Tells a developer reading the response that the sandbox did this on purpose.
    res.setHeader('X-Sandbox-Fault', op.id);
    if (fault.latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, fault.latencyMs));
    if (fault.drop) {
      req.socket.destroy();
      return;
    }
    next(fault.error);
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
