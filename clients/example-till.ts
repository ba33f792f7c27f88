// A till's checkout with the typed client: npx tsx clients/example-till.ts
// (BFF: where the cashier API is; CASHIER_TOKEN: a cashier terminal's token).
import { createPosClient, type CustomerSummary, type PaymentRequest } from './pos-client';

const pos = createPosClient({ baseUrl: process.env.BFF ?? 'http://localhost:8080', token: process.env.CASHIER_TOKEN ?? '' });

async function checkout(customerId: string): Promise<void> {
  // 1. Who is at the till: balance and tier in one summary.
  const found = await pos.GET('/pos/v1/customers/{id}', { params: { path: { id: customerId } } });
  if (found.error) throw new Error(`lookup refused: ${found.error.code} (${found.error.detail})`);
  const customer: CustomerSummary = found.data;
  console.log(`${customer.customerId} has ${customer.points.available} ${customer.pointsName}`);

  // 2. The sale. The client sends it with an Idempotency-Key and, after a lost answer, sends it again
  //    with the same key: the BFF answers with the first result instead of recording it twice.
  const sale: PaymentRequest = {
    customerId,
    paymentId: `sale-${Date.now()}`,
    totalPaid: 25,
    lines: [{ serviceId: 'sku-mug', name: 'Mug', amount: 25 }],
  };
  const paid = await pos.POST('/pos/v1/payments', { body: sale });
  if (paid.error) throw new Error(`sale refused: ${paid.error.code} (${paid.error.detail})`);
  if ('queued' in paid.data) {
    // 202 QueuedPayment: the loyalty service was out of reach; the BFF delivers it later.
    console.log(`${paid.data.paymentId} queued as ${paid.data.outboxId}`);
    return;
  }
  // 201 PaymentResult, with the receipt block to print.
  console.log(`${paid.data.paymentId} ${paid.data.status}, earned ${paid.data.pointsEarned}`);
  console.log(paid.data.receipt?.lines.join('\n'));
}

checkout(process.argv[2] ?? 'demo-customer').catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exitCode = 1;
});
