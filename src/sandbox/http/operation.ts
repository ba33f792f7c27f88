import type { NextFunction, Request, RequestHandler, Response, Router } from 'express';
import type { Operation } from '../../contract';
import type { SandboxContext } from '../context';
import type { AccountEntry } from '../state/store';
import { accountFrom, requireKeys } from './keys';
import { enforceRateLimits } from './rate-limits';

export type OperationHandler = (req: Request, account: AccountEntry, res: Response) => unknown | Promise<unknown>;

/**
 * Mounts one v4.0 operation from the contract's OPERATIONS table: its method
 * and path, its key requirement, the account's rate limits, the
 * before-operation hooks (fault rules), then the handler,
 * whose return value is sent as the 200 JSON body.
 */
export function mountOperation(router: Router, ctx: SandboxContext, op: Operation, handler: OperationHandler): void {
  const method = op.method.toLowerCase() as 'get' | 'post' | 'delete';
  router[method](
    op.path,
    (_req, res, next) => {
      res.locals.operation = op;
      next();
    },
    requireKeys(ctx.store, op.keys),
    enforceRateLimits(ctx),
    runHooks(ctx),
    async (req, res) => {
      const body = await handler(req, accountFrom(res), res);
      if (!res.headersSent) res.status(200).json(body);
    },
  );
}

/** Runs `ctx.beforeOperation` as it is at request time, so hooks may be added after mounting. */
function runHooks(ctx: SandboxContext): RequestHandler {
  return (req, res, next) => {
    const hooks = ctx.beforeOperation;
    let i = 0;
    const step: NextFunction = (err?: unknown) => {
      if (err !== undefined && err !== null) return next(err);
      const hook = hooks[i++];
      if (!hook) return next();
      try {
        const result = hook(req, res, step) as unknown;
        if (result instanceof Promise) result.catch(step);
      } catch (e) {
        step(e);
      }
    };
    step();
  };
}
