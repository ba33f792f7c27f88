import type { Router } from 'express';
import { OPERATIONS, RedemptionConfigQuery, RewardPreviewRequest, TrackOrderRequest, TransactionsQuery } from '../../contract';
import type { SandboxContext } from '../context';
import { mountOperation } from '../http/operation';
import { parseBody, parseWith, pathParam } from '../http/validate';
import { orderTransactions, previewRewards } from '../operations/orders';
import { redemptionConfig } from '../operations/redemption-config';
import { trackOrder } from '../operations/track-order';
import { listTransactions } from '../operations/transactions';

export function orderRoutes(router: Router, ctx: SandboxContext): void {
  mountOperation(router, ctx, OPERATIONS.trackOrder, (req, account) => trackOrder(ctx, account, parseBody(TrackOrderRequest, req)));
  mountOperation(router, ctx, OPERATIONS.rewardPreview, (req, account) => previewRewards(ctx, account, parseBody(RewardPreviewRequest, req)));
  mountOperation(router, ctx, OPERATIONS.orderTransactions, (req, account) => orderTransactions(ctx, account, pathParam(req, 'orderId')));
  mountOperation(router, ctx, OPERATIONS.transactions, (req, account) => listTransactions(ctx, account, parseWith(TransactionsQuery, req.query, 'query')));
  mountOperation(router, ctx, OPERATIONS.redemptionConfig, (req, account) => {
    parseWith(RedemptionConfigQuery, req.query, 'query');
    return redemptionConfig(ctx, account);
  });
}
