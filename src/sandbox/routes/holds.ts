import type { Router } from 'express';
import { HoldRequest, OPERATIONS } from '../../contract';
import type { SandboxContext } from '../context';
import { mountOperation } from '../http/operation';
import { parseBody, pathParam } from '../http/validate';
import { cancelHold, lookupHold, placeHold } from '../operations/holds';

export function holdRoutes(router: Router, ctx: SandboxContext): void {
  mountOperation(router, ctx, OPERATIONS.hold, (req, account) => placeHold(ctx, account, parseBody(HoldRequest, req)));
  mountOperation(router, ctx, OPERATIONS.holdLookup, (req, account) => lookupHold(ctx, account, pathParam(req, 'holdReferenceId')));
  mountOperation(router, ctx, OPERATIONS.holdCancel, (req, account) => cancelHold(ctx, account, pathParam(req, 'holdReferenceId')));
}
