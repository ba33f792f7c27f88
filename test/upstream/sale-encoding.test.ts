import type { PaymentRequest } from '../../src/contract';
import { OPERATIONS } from '../../src/contract';
import { asTrackedOrder } from '../../src/upstream';

/** A sale's payment request re-encoded as a tracked order: the same sale, priced the same way. */
const sale: PaymentRequest = {
  customerId: 'c-1',
  paymentId: 'sale-1',
  paymentDate: '2026-11-28T10:00:00.000Z',
  totalPaid: 40,
  channel: 'pos',
  paymentDetails: [
    { serviceId: 'sku-cup', amount: 9, extra: { quantity: 3, sku: 'CUP-1', colour: 'red' } },
    { serviceId: 'sku-nuts', amount: 10, extra: { quantity: 3 } },
    { serviceId: 'sku-box', amount: 21, extra: { quantity: '3 boxes', sku: 42 } },
  ],
};

describe('asTrackedOrder', () => {
  it('sends a unit price and quantity only when the unit price is a whole figure; else the line total, the quantity kept in extra', () => {
    expect(asTrackedOrder(sale).lineItems).toEqual([
      { productId: 'sku-cup', quantity: 3, price: 3, sku: 'CUP-1', extra: { colour: 'red' } },
      // 10 / 3 has no exact price: one line at its total, so both ways earn on 10.
      { productId: 'sku-nuts', price: 10, extra: { quantity: 3 } },
      // An sku or quantity the order line cannot carry stays where the till put it.
      { productId: 'sku-box', price: 21, extra: { quantity: '3 boxes', sku: 42 } },
    ]);
  });

  it('every line prices to the payment line amount', () => {
    const lines = asTrackedOrder(sale).lineItems ?? [];
    expect(lines.map((l) => (l.price ?? 0) * (l.quantity ?? 1))).toEqual(sale.paymentDetails!.map((d) => d.amount));
  });

  it('carries totalPrice (the POS guide requires it) when it is positive, and fits the published order schema', () => {
    expect(asTrackedOrder({ ...sale, totalAmount: 50 }).totalPrice).toBe(50);
    expect(asTrackedOrder({ ...sale, totalDiscount: 5 }).totalPrice).toBe(45);
    // A sale paid wholly in points, nothing else known: no price to send (the schema wants one positive).
    expect(asTrackedOrder({ ...sale, totalPaid: 0 })).not.toHaveProperty('totalPrice');
    expect(OPERATIONS.trackOrder.request.safeParse(asTrackedOrder(sale)).success).toBe(true);
  });
});
