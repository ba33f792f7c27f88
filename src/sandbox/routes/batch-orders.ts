import type { Router } from 'express';
import { BatchOrdersRequest, OPERATIONS } from '../../contract';
import type { SandboxContext } from '../context';
import { mountOperation } from '../http/operation';
import { parseBody, pathParam } from '../http/validate';
import { readBatchStatus, submitBatch } from '../operations/batch-orders';

export function batchOrderRoutes(router: Router, ctx: SandboxContext): void {
  mountOperation(router, ctx, OPERATIONS.batchOrders, (req, account) => submitBatch(ctx, account, parseBody(BatchOrdersRequest, req)));
  mountOperation(router, ctx, OPERATIONS.batchStatus, (req, account) => readBatchStatus(ctx, account, pathParam(req, 'batchId')));
}
