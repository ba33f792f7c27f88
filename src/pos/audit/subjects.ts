import type { RefundRequest } from '../../contract';
import type { AuditSubject } from './types';

/**
 * What each kind of action is about, as its audit entry names it: ids, points
 * and money, never the request's contact fields (email, mobile), hash or OTP.
 * A request is typed by the fields read here, not imported from its feature:
 * the audit trail sits below the features that record into it.
 */

/** What a redemption's entry names of it. */
type HoldFields = { customerId?: string; holdReference?: string };

type SaleFields = { customerId: string; paymentId: string; totalPaid: number; redemptionId?: string; couponLockId?: string };

export const saleSubject = (body: SaleFields, redemption?: HoldFields): AuditSubject => ({
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

export const redemptionSubject = (id: string, r?: HoldFields): AuditSubject => ({
  redemptionId: id,
  customerId: r?.customerId,
  holdReference: r?.holdReference,
});

export const batchSubject = (body: { orders: readonly { orderId: string; totalPaid: number }[] }): AuditSubject => ({
  names: body.orders.slice(0, 50).map((o) => o.orderId),
  amountPaid: Math.round(body.orders.reduce((s, o) => s + o.totalPaid, 0) * 1000) / 1000,
});
