import { z } from 'zod';
import { one, routesGiven, TILL } from '../http/route';
import { orderExamples } from './examples';
import { orderBatchStatus, uploadOrdersOrQueue } from './operations';
import { BatchOrdersBody, JobIdParam, OrderBatchAcceptedSchema, OrderBatchStatusSchema, QueuedOrderBatchSchema } from './schemas';

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
    body: { schema: BatchOrdersBody, examples: one('One offline sale', orderExamples.orders) },
    success: { status: 202, description: 'Accepted; poll the job', schema: OrderBatchAcceptedSchema, example: orderExamples.ordersAccepted },
    queued: { schema: QueuedOrderBatchSchema, example: orderExamples.queuedOrders },
    callsLoyalty: true,
    codes: ['payment_id_taken'],
    handle: (deps, ctx, { body }) => uploadOrdersOrQueue(deps, ctx, body),
  }),
  route({
    method: 'get',
    path: '/orders/batch/:jobId',
    operationId: 'getOrderBatch',
    tag: 'Engagement',
    roles: TILL,
    summary: 'Progress and failures of an order upload',
    params: z.object({ jobId: JobIdParam.shape.jobId.meta({ description: 'The jobId from POST /orders/batch', example: '17' }) }),
    success: { status: 200, description: 'The job', schema: OrderBatchStatusSchema, example: orderExamples.orderStatus },
    callsLoyalty: true,
    codes: ['batch_job_not_found'],
    handle: (deps, ctx, { params }) => orderBatchStatus(deps, ctx, params.jobId),
  }),
];
