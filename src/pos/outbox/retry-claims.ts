import { problem } from '../../platform/problem';
import type { IdEntry, IdRecords } from '../money/ids/records';
import { recordOf, type WriteRecord } from '../money/ids/same-write';
import { queuedWrite } from './deliver';
import type { OutboxEntry } from './types';

/** An id a queued write claims, with the identity of its write (sales/records SaleEntry keeps the same fields). */
export type QueuedId = IdEntry<'payment' | 'refund'> & WriteRecord & { customerId: string; paymentId: string };

/** The ids a queued write claimed when the till sent it: its payment, its refund, each order of a batch. Events claim none. */
export function idsOf(e: OutboxEntry): QueuedId[] {
  const storeId = e.storeId;
  const w = e.work;
  switch (w.kind) {
    case 'payment':
      return [
        { kind: 'payment', id: w.request.paymentId, storeId, customerId: w.request.customerId, paymentId: w.request.paymentId, ...recordOf(queuedWrite(w)) },
      ];
    case 'refund':
      return [
        {
          kind: 'refund',
          id: w.request.refundTransactionId,
          storeId,
          customerId: w.request.customerId,
          paymentId: w.request.reverseTransactionId,
          ...recordOf(queuedWrite(w)),
        },
      ];
    case 'batchOrders':
      // A batch's order names no hold and no coupons: those fields are not asserted.
      return w.request.body.map((o) => ({
        kind: 'payment' as const,
        id: o.orderId,
        storeId,
        ...recordOf({ kind: 'payment', paymentId: o.orderId, customerId: o.customerId, totalPaid: o.totalPaid }),
        customerId: o.customerId,
        paymentId: o.orderId,
      }));
    case 'events':
      return [];
  }
}

/**
 * Claims a dead letter's ids again before it goes back in the queue: a dead
 * letter refused for good freed them, and a write delivered unclaimed would
 * belong to no store. An id still claimed by this very write (its attempts may
 * have landed) is kept; one taken by another write refuses the retry, the
 * claims taken here are freed, and the dead letter stays. Returns a function
 * that frees what was claimed here (the retry did not happen after all).
 */
export async function claimAgain(records: IdRecords<QueuedId>, e: OutboxEntry): Promise<() => Promise<void>> {
  const taken: QueuedId[] = [];
  const freeAll = async () => {
    for (const t of taken) await records.free(t.kind, t.id, t.storeId);
  };
  for (const id of idsOf(e)) {
    const got = await records.claim(id);
    if (got.ok) {
      taken.push(id);
      continue;
    }
    const held = got.entry;
    if (held.storeId === id.storeId && held.customerId === id.customerId && held.paymentId === id.paymentId && held.state === 'recording') continue;
    await freeAll();
    throw problem(
      'dead_letter_id_taken',
      `The ${id.kind} id ${id.id} of dead letter ${e.id} is now used by another write; nothing was sent and the dead letter stays`,
    );
  }
  return freeAll;
}
