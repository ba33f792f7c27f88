import type { Request, Response } from 'express';
import { requestIdOf } from '../../platform/http';
import { identityOf } from '../auth';
import { cashierOf } from '../audit/cashier';
import type { CallContext } from '../context';
import { tillOf } from '../till-wait';

export function callContext(req: Request, res: Response): CallContext {
  const till = tillOf(res);
  return { identity: identityOf(res), requestId: requestIdOf(req), ...cashierOf(res), ...(till ? { till } : {}) };
}
