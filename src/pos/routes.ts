import type { PosDeps } from './deps';
import type { PosRoute } from './http/route';
import { COUPON_ROUTES } from './coupons/routes';
import { CUSTOMER_ROUTES } from './customers/routes';
import { EVENT_ROUTES } from './events/routes';
import { ORDER_ROUTES } from './orders/routes';
import { OUTBOX_ROUTES } from './outbox/routes';
import { REDEMPTION_ROUTES } from './redemptions/routes';
import { REFUND_ROUTES } from './refunds/routes';
import { SALE_ROUTES } from './sales/routes';
import { AUDIT_ROUTES } from './audit/routes';
import { RECONCILIATION_ROUTES } from './reconciliation/routes';
import { TILL_ANSWER_ROUTES } from './till-answers/routes';

/** Every cashier route, in the order they are mounted; the OpenAPI document is made from this list. */
export const POS_ROUTES: readonly PosRoute<PosDeps>[] = [
  ...CUSTOMER_ROUTES,
  ...REDEMPTION_ROUTES,
  ...COUPON_ROUTES,
  ...SALE_ROUTES,
  ...REFUND_ROUTES,
  ...EVENT_ROUTES,
  ...ORDER_ROUTES,
  ...OUTBOX_ROUTES,
  ...AUDIT_ROUTES,
  ...RECONCILIATION_ROUTES,
  ...TILL_ANSWER_ROUTES,
];
