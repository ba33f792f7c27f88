import { z } from 'zod';
import { one, READ_ERRORS, routesGiven, TILL, WRITE_ERRORS } from '../http/route';
import { examples as ex } from '../openapi/examples';
import * as res from '../response-schemas';
import * as req from '../schemas';
import { orderBatchStatus, uploadOrdersOrQueue } from './operations';

import type { OrderDeps } from './operations';

const route = routesGiven<OrderDeps>();

/** The end-of-day upload of sales rung up offline, and its progress. */
export const ORDER_ROUTES = [
  route({
    method: 'post',
    path: '/orders/batch',
    operationId: 'uploadOrders',
    tag: 'Engagement',
    roles: TILL,
    summary: 'Upload sales rung up offline (end of day)',
    body: { schema: req.BatchOrdersBody, examples: one('One offline sale', ex.orders) },
    success: { status: 202, description: 'Accepted; poll the job', schema: res.OrderBatchAcceptedSchema, example: ex.ordersAccepted },
    queued: { schema: res.QueuedOrderBatchSchema, example: ex.queuedOrders },
    errors: WRITE_ERRORS,
    handle: (deps, ctx, { body }) => uploadOrdersOrQueue(deps, ctx, body),
  }),
  route({
    method: 'get',
    path: '/orders/batch/:jobId',
    operationId: 'getOrderBatch',
    tag: 'Engagement',
    roles: TILL,
    summary: 'Progress and failures of an order upload',
    params: z.object({ jobId: req.JobIdParam.shape.jobId.meta({ description: 'The jobId from POST /orders/batch', example: '17' }) }),
    success: { status: 200, description: 'The job', schema: res.OrderBatchStatusSchema, example: ex.orderStatus },
    errors: READ_ERRORS,
    handle: (deps, ctx, { params }) => orderBatchStatus(deps, ctx, params.jobId),
  }),
];
