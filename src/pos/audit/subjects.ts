import type { RefundRequest } from '../../contract';
import type { Redemption } from '../redemptions/types';
import type { BatchOrdersBody } from '../orders/schemas';
import type { PaymentBody } from '../sales/schemas';
import type { AuditSubject } from './types';

/**
 * What each kind of action is about, as its audit entry names it: ids, points
 * and money, never the request's contact fields (email, mobile), hash or OTP.
 */

export const saleSubject = (body: PaymentBody, redemption?: Redemption): AuditSubject => ({
  customerId: body.customerId,
  paymentId: body.paymentId,
  amountPaid: body.totalPaid,
  redemptionId: body.redemptionId,
  couponLockId: body.couponLockId,
  holdReference: redemption?.holdReference,
});

export const refundSubject = (req: RefundRequest): AuditSubject => ({
  customerId: req.customerId,
  refundId: req.refundTransactionId,
  paymentId: req.reverseTransactionId,
});

export const redemptionSubject = (id: string, r?: Redemption): AuditSubject => ({
  redemptionId: id,
  customerId: r?.customerId,
  holdReference: r?.holdReference,
});

export const batchSubject = (body: BatchOrdersBody): AuditSubject => ({
  names: body.orders.slice(0, 50).map((o) => o.orderId),
  amountPaid: Math.round(body.orders.reduce((s, o) => s + o.totalPaid, 0) * 1000) / 1000,
});
