import type { RequestHandler } from 'express';
import { requestIdOf } from '../../platform/http';
import { runWithLogContext } from '../../platform/logger';
import type { TerminalIdentity } from '../terminals/types';
import { cashierOf } from '../audit/cashier';

/**
 * Puts the request id and the calling terminal on every log line written
 * while the route runs: operations and the upstream client log through their
 * own loggers, and this is how their lines name the till. Mount after the
 * body parser (a stream callback would otherwise drop the async context).
 */
export const enterLogContext: RequestHandler = (req, res, next) => {
  const identity = (res.locals as { identity?: TerminalIdentity }).identity;
  runWithLogContext(
    {
      requestId: requestIdOf(req) || undefined,
      terminalId: identity?.terminal.id,
      storeId: identity?.store.id,
      role: identity?.terminal.role,
      ...cashierOf(res),
    },
    next,
  );
};
