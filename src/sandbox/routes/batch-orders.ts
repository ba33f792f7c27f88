import type { Router } from 'express';
import { BatchOrdersRequest, OPERATIONS } from '../../contract';
import type { SandboxContext } from '../context';
import { loyaltyErrors } from '../errors';
import { mountOperation } from '../http/operation';
import { parseBody, pathParam } from '../http/validate';
import { readBatchStatus, submitBatch } from '../operations/batch-orders';

export function batchOrderRoutes(router: Router, ctx: SandboxContext): void {
  mountOperation(router, ctx, OPERATIONS.batchOrders, (req, account) => submitBatch(ctx, account, parseBody(BatchOrdersRequest, req)));
  mountOperation(router, ctx, OPERATIONS.batchStatus, (req, account) => {
    const raw = pathParam(req, 'jobId');
    if (!/^[0-9]{1,15}$/.test(raw)) throw loyaltyErrors.invalidValue(`jobId in the path must be a job number (got "${raw.slice(0, 40)}")`, 'InvalidValue');
    return readBatchStatus(ctx, account, Number(raw));
  });
}
