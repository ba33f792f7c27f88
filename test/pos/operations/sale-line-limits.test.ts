import type { z } from 'zod';
import { PaymentRequest, RefundRequest } from '../../../src/contract';
import type { CallContext } from '../../../src/pos/context';
import { toUpstreamPayment } from '../../../src/pos/sales/payments';
import { toUpstreamRefund } from '../../../src/pos/refunds/operations';
import { RefundBody, RefundFields } from '../../../src/pos/refunds/schemas';
import { PaymentBody, SaleLine } from '../../../src/pos/sales/schemas';

/**
 * No limit of a sale line is wider than the loyalty service's: a line at
 * every limit the till's schema sets (read from the schema itself, so a
 * widened limit fails here) goes up as a refund and as a payment the
 * service's request schemas accept.
 */
const ctx = {
  requestId: 'req-1',
  identity: {
    terminal: { id: 'till-1', storeId: 'store-001', role: 'manager' },
    store: { id: 'store-001', merchant: { uniqueId: 'm-1', name: 'Shop' }, branch: { uniqueId: 'b-1', name: 'Main' } },
  },
} as unknown as CallContext;

type Introspected = {
  def: { type: string; checks?: { _zod: { def: { check: string; maximum?: number } } }[] };
  maxLength?: number | null;
  element?: Introspected;
  unwrap?: () => Introspected;
};
const unwrapped = (s: Introspected): Introspected => (s.def.type === 'optional' && s.unwrap ? unwrapped(s.unwrap()) : s);
const maxItems = (s: Introspected) => s.def.checks?.map((c) => c._zod.def).find((d) => d.check === 'max_length')?.maximum;

/** Every string at its longest and every list at its longest, as SaleLine allows. */
function longestLine(): SaleLine {
  const line: Record<string, unknown> = { quantity: 1_000_000, amount: 1_000_000_000, tax: 1, discount: 1, extra: { ['k'.repeat(200)]: 'v'.repeat(2000) } };
  for (const [field, schema] of Object.entries(SaleLine.shape)) {
    const s = unwrapped(schema as unknown as Introspected);
    if (s.def.type === 'string') line[field] = field[0].repeat(s.maxLength as number);
    if (s.def.type === 'array')
      line[field] = Array.from({ length: maxItems(s) as number }, (_, i) => String(i % 10).repeat(unwrapped(s.element as Introspected).maxLength as number));
  }
  return SaleLine.parse(line);
}

const issues = (r: z.ZodSafeParseResult<unknown>) => (r.success ? [] : r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`));

describe("sale line limits against the loyalty service's", () => {
  const line = longestLine();

  it('the longest line is the one the schema allows (the introspection read the limits)', () => {
    expect(line.name).toHaveLength(500);
    expect(line.provider).toHaveLength(200);
    expect(line.category).toHaveLength(50);
  });

  it('refunded by lines, it is a refund request the service accepts', () => {
    const body = RefundBody.parse({ customerId: 'c'.repeat(200), refundId: 'r'.repeat(200), paymentId: 'p'.repeat(200), lines: [line] });
    expect(issues(RefundRequest.safeParse(toUpstreamRefund(ctx, body, 0)))).toEqual([]);
  });

  it('sold, it is a payment request the service accepts', () => {
    const body = PaymentBody.parse({ customerId: 'c'.repeat(200), paymentId: 'p'.repeat(200), totalPaid: 1, lines: [line] });
    expect(issues(PaymentRequest.safeParse(toUpstreamPayment(ctx, body, 0)))).toEqual([]);
  });

  it('no more lines than the service takes', () => {
    const refundLines = maxItems(unwrapped(RefundFields.shape.lines as unknown as Introspected)) as number;
    const upstreamLines = maxItems(unwrapped(RefundRequest.shape.lineItems as unknown as Introspected)) as number;
    expect(refundLines).toBeLessThanOrEqual(upstreamLines);
    const paymentLines = maxItems(unwrapped(PaymentBody.shape.lines as unknown as Introspected)) as number;
    expect(paymentLines).toBeLessThanOrEqual(maxItems(unwrapped(PaymentRequest.shape.paymentDetails as unknown as Introspected)) as number);
  });
});
