import { PaymentRequest, RefundRequest } from '../../../src/contract';
import type { CallContext } from '../../../src/pos/context';
import { toUpstreamPayment } from '../../../src/pos/sales/payments';
import { toUpstreamRefund } from '../../../src/pos/refunds/operations';
import { RefundBody } from '../../../src/pos/refunds/schemas';
import { PaymentBody, SaleLine } from '../../../src/pos/sales/schemas';

/** One line shape for payments and refunds: each upstream gets the fields it has. */
const ctx = {
  requestId: 'req-1',
  identity: {
    terminal: { id: 'till-1', storeId: 'store-001', role: 'cashier' },
    store: { id: 'store-001', merchant: { uniqueId: 'm-1', name: 'Shop' }, branch: { uniqueId: 'b-1', name: 'Main' } },
  },
} as unknown as CallContext;
const line = SaleLine.parse({
  serviceId: 'sku-1',
  sku: 'KET-1',
  name: 'Kettle',
  provider: 'Acme',
  quantity: 3,
  amount: 100,
  tax: 4,
  discount: 0,
  category: ['kitchen'],
  tags: ['gift'],
  extra: { colour: 'red' },
});

describe('sale lines', () => {
  it('are one schema for payments and refunds (a line accepted by one is accepted by the other)', () => {
    const pay = PaymentBody.parse({ customerId: 'c', paymentId: 'p', totalPaid: 100, lines: [line] });
    const ref = RefundBody.parse({ customerId: 'c', refundId: 'r', paymentId: 'p', lines: [line] });
    expect(pay.lines).toEqual([line]);
    expect(ref.lines).toEqual([line]);
  });

  it('refuse the old refund line fields, naming them', () => {
    const res = RefundBody.safeParse({ customerId: 'c', refundId: 'r', paymentId: 'p', lines: [{ serviceId: 'sku-1', price: 10, title: 'Kettle' }] });
    expect(res.success).toBe(false);
    const paths = res.error!.issues.map((i) => [...i.path, ...('keys' in i ? (i.keys as string[]) : [])].join('.'));
    expect(paths.join(' ')).toContain('lines.0.amount');
    expect(paths.join(' ')).toContain('price');
  });

  it('go up as paymentDetails: the line total as amount, zero figures dropped, sku and quantity in extra', () => {
    const req = toUpstreamPayment(ctx, PaymentBody.parse({ customerId: 'c', paymentId: 'p', totalPaid: 100, lines: [line] }), 0);
    expect(req.paymentDetails).toEqual([
      {
        serviceId: 'sku-1',
        serviceName: 'Kettle',
        serviceProvider: 'Acme',
        amount: 100,
        tax: 4,
        discount: undefined,
        category: ['kitchen'],
        tags: ['gift'],
        extra: { colour: 'red', sku: 'KET-1', quantity: 3 },
      },
    ]);
    expect(PaymentRequest.safeParse(req).success).toBe(true);
    const bare = toUpstreamPayment(ctx, PaymentBody.parse({ customerId: 'c', paymentId: 'p', totalPaid: 5, lines: [{ serviceId: 's', amount: 5 }] }), 0);
    expect(bare.paymentDetails?.[0].extra).toBeUndefined();
  });

  it('go up as refund lineItems: a unit price times the quantity, every field mapped', () => {
    const req = toUpstreamRefund(
      ctx,
      RefundBody.parse({ customerId: 'c', refundId: 'r', paymentId: 'p', lines: [line, { serviceId: 'sku-2', amount: 7.5 }] }),
      0,
    );
    expect(req.lineItems).toEqual([
      {
        productId: 'sku-1',
        sku: 'KET-1',
        title: 'Kettle',
        vendor: 'Acme',
        quantity: 3,
        price: 33.333333,
        taxes: 4,
        discount: 0,
        category: ['kitchen'],
        tags: ['gift'],
        extra: { colour: 'red' },
      },
      {
        productId: 'sku-2',
        sku: undefined,
        title: undefined,
        vendor: undefined,
        quantity: undefined,
        price: 7.5,
        taxes: undefined,
        discount: undefined,
        category: undefined,
        tags: undefined,
        extra: undefined,
      },
    ]);
    expect(Math.abs(req.lineItems![0].price * 3 - 100)).toBeLessThan(0.001);
    expect(RefundRequest.safeParse(req).success).toBe(true);
  });
});
