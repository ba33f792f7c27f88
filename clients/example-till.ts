// A till's checkout with the typed client: npx tsx clients/example-till.ts
// (BFF: where the cashier API is; CASHIER_TOKEN: a cashier terminal's token; TILL_JOURNAL: where the sale waits for its answer).
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createPosClient, newIdempotencyKey, type CustomerSummary, type PaymentRequest } from './pos-client';

const pos = createPosClient({ baseUrl: process.env.BFF ?? 'http://localhost:8080', token: process.env.CASHIER_TOKEN ?? '' });
const journal = process.env.TILL_JOURNAL ?? '.till-journal.json';

/** A sale sent and not yet answered, with the key it went with; `readBack`: its outcome is to be read, never sent again. */
interface PendingSale {
  sale: PaymentRequest;
  idempotencyKey: string;
  readBack?: { location?: string };
}

/** Written whole or not at all (a temp file renamed over it): a till killed mid-write keeps the last journal. */
function keep(pending: PendingSale): void {
  writeFileSync(`${journal}.tmp`, JSON.stringify(pending));
  renameSync(`${journal}.tmp`, journal);
}

/** A sale whose outcome is to be read: its 202's Location while it runs, else the sale itself. */
async function readOutcome(pending: PendingSale): Promise<void> {
  const { paymentId } = pending.sale;
  const location = pending.readBack?.location;
  const back = location
    ? await pos.readBack(location, { method: 'POST', url: '/pos/v1/payments' })
    : (await pos.GET('/pos/v1/payments/{paymentId}', { params: { path: { paymentId } } })).response;
  if (back.status === 202 && pos.factsOf(back)?.pending) return console.log(`${paymentId} still running`);
  if (back.ok) {
    rmSync(journal, { force: true });
    return console.log(`${paymentId} read back: recorded`);
  }
  // Not found (yet), or the read failed: the journal keeps it to read again (or for a manager to settle), never to send again.
  console.log(`${paymentId} not known to be recorded (${back.status}); read it again later`);
}

async function checkout(customerId: string): Promise<void> {
  // 1. Who is at the till: balance and tier in one summary.
  const found = await pos.GET('/pos/v1/customers/{id}', { params: { path: { id: customerId } } });
  if (found.error) throw new Error(`lookup refused: ${found.error.code} (${found.error.detail})`);
  const customer: CustomerSummary = found.data;
  console.log(`${customer.customerId} has ${customer.points.available} ${customer.pointsName}`);

  // 2. The sale, kept in the journal with its key before it is sent: a till restarted before the answer sends
  //    the same request with the same key, and the BFF answers with the first result instead of recording it twice.
  //    A sale whose answer said `read` (a 202 pending, an outcome unknown) is read back instead, never sent again.
  let pending: PendingSale;
  if (existsSync(journal)) {
    pending = JSON.parse(readFileSync(journal, 'utf8')) as PendingSale;
    if (pending.readBack) {
      console.log(`reading ${pending.sale.paymentId} back`);
      return readOutcome(pending);
    }
    console.log(`sending ${pending.sale.paymentId} again with its key`);
  } else {
    const sale: PaymentRequest = {
      customerId,
      paymentId: `sale-${Date.now()}`,
      totalPaid: 25,
      lines: [{ serviceId: 'sku-mug', name: 'Mug', amount: 25 }],
    };
    pending = { sale, idempotencyKey: newIdempotencyKey() };
    keep(pending);
  }
  const paid = await pos.POST('/pos/v1/payments', { body: pending.sale, params: { header: { 'Idempotency-Key': pending.idempotencyKey } } });
  const facts = pos.factsOf(paid.response);
  const rule = facts?.rule;
  // `same`: the sale stays in the journal to be sent again with its key; `read`: to be read back; else it is settled.
  if (rule === 'read') keep({ ...pending, readBack: { location: facts?.pending?.location } });
  else if (rule !== 'same') rmSync(journal, { force: true });
  if (paid.error) throw new Error(`sale refused: ${paid.error.code} (${paid.error.detail}); next: ${rule}`);
  if ('pending' in paid.data) {
    // 202 pending: still running at the deadline; the next run reads it back from its Location.
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
