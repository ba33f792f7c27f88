// A till's checkout with the typed client: npx tsx clients/example-till.ts
// (BFF: where the cashier API is; CASHIER_TOKEN: a cashier terminal's token; TILL_JOURNAL: where the sale waits for its answer).
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createPosClient, newIdempotencyKey, type CustomerSummary, type PaymentRequest } from './pos-client';

const pos = createPosClient({ baseUrl: process.env.BFF ?? 'http://localhost:8080', token: process.env.CASHIER_TOKEN ?? '' });
const journal = process.env.TILL_JOURNAL ?? '.till-journal.json';

/** A sale sent and not yet answered, with the key it went with. */
interface PendingSale {
  sale: PaymentRequest;
  idempotencyKey: string;
}

async function checkout(customerId: string): Promise<void> {
  // 1. Who is at the till: balance and tier in one summary.
  const found = await pos.GET('/pos/v1/customers/{id}', { params: { path: { id: customerId } } });
  if (found.error) throw new Error(`lookup refused: ${found.error.code} (${found.error.detail})`);
  const customer: CustomerSummary = found.data;
  console.log(`${customer.customerId} has ${customer.points.available} ${customer.pointsName}`);

  // 2. The sale, kept in the journal with its key before it is sent: a till restarted before the answer sends
  //    the same request with the same key, and the BFF answers with the first result instead of recording it twice.
  let pending: PendingSale;
  if (existsSync(journal)) {
    pending = JSON.parse(readFileSync(journal, 'utf8')) as PendingSale;
    console.log(`sending ${pending.sale.paymentId} again with its key`);
  } else {
    const sale: PaymentRequest = {
      customerId,
      paymentId: `sale-${Date.now()}`,
      totalPaid: 25,
      lines: [{ serviceId: 'sku-mug', name: 'Mug', amount: 25 }],
    };
    pending = { sale, idempotencyKey: newIdempotencyKey() };
    writeFileSync(journal, JSON.stringify(pending));
  }
  const paid = await pos.POST('/pos/v1/payments', { body: pending.sale, params: { header: { 'Idempotency-Key': pending.idempotencyKey } } });
  const rule = pos.factsOf(paid.response)?.rule;
  // `same` and `read`: the sale may yet be recorded, so it stays in the journal for the next try.
  if (rule !== 'same' && rule !== 'read') rmSync(journal, { force: true });
  if (paid.error) throw new Error(`sale refused: ${paid.error.code} (${paid.error.detail}); next: ${rule}`);
  if ('pending' in paid.data) {
    // 202 pending: still running at the deadline; the next run reads it back with the same key.
    console.log(`${pending.sale.paymentId} still running`);
    return;
  }
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
