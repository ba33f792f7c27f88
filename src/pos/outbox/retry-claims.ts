import { problem } from '../../platform/problem';
import { stateOf, type IdEntry, type IdRecords } from '../money/ids/records';
import { recordDiffers, recordOf, type Write, type WriteRecord } from '../money/ids/same-write';
import { queuedWrite } from './deliver';
import type { OutboxEntry } from './types';

/** An id a queued write claims, with the identity of its write (sales/records SaleEntry keeps the same fields). */
export type QueuedId = IdEntry<'payment' | 'refund'> & WriteRecord & { customerId: string; paymentId: string; recordedAs?: 'order' };

/** The writes a queued entry holds, each with the id it claims: its payment, its refund, each order of a batch. Events none. */
function writesOf(e: OutboxEntry): { kind: 'payment' | 'refund'; id: string; write: Write; recordedAs?: 'order' }[] {
  const w = e.work;
  switch (w.kind) {
    case 'payment':
      // A sale keeps the way it is sent (a tracked order's claim says so), for a till's retry of it later.
      return [{ kind: 'payment', id: w.request.paymentId, write: queuedWrite(w), ...(w.recordedAs ? { recordedAs: w.recordedAs } : {}) }];
    case 'refund':
      return [{ kind: 'refund', id: w.request.refundTransactionId, write: queuedWrite(w) }];
    case 'batchOrders':
      // A batch's order names no hold and no coupons: those fields are not asserted.
      return w.request.body.map((o) => ({
        kind: 'payment' as const,
        id: o.orderId,
        write: { kind: 'payment' as const, paymentId: o.orderId, customerId: o.customerId, totalPaid: o.totalPaid },
      }));
    case 'events':
      return [];
  }
}

const entryOf = (storeId: string, q: { kind: 'payment' | 'refund'; id: string; write: Write; recordedAs?: 'order' }): QueuedId => ({
  kind: q.kind,
  id: q.id,
  storeId,
  ...recordOf(q.write),
  customerId: q.write.customerId,
  paymentId: q.write.paymentId,
  ...(q.recordedAs ? { recordedAs: q.recordedAs } : {}),
});

/** The ids a queued write claimed when the till sent it: its payment, its refund, each order of a batch. Events claim none. */
export function idsOf(e: OutboxEntry): QueuedId[] {
  return writesOf(e).map((q) => entryOf(e.storeId, q));
}

/**
 * Claims a dead letter's ids again before it goes back in the queue: a dead
 * letter refused for good freed them, and a write delivered unclaimed would
 * belong to no store. An id still claimed (`recording`) by this very write
 * (the same store, and nothing its entry records differs from the queued
 * write: its attempts may have landed) is kept; one taken by another write,
 * or already recorded, refuses the retry, the claims taken here are freed,
 * and the dead letter stays. Returns a function that frees what was claimed
 * here (the retry did not happen after all).
 */
export async function claimAgain(records: IdRecords<QueuedId>, e: OutboxEntry): Promise<() => Promise<void>> {
  const taken: QueuedId[] = [];
  const freeAll = async () => {
    for (const t of taken) await records.free(t.kind, t.id, t.storeId);
  };
  for (const q of writesOf(e)) {
    const id = entryOf(e.storeId, q);
    const got = await records.claim(id);
    if (got.ok) {
      taken.push(id);
      continue;
    }
    const held = got.entry;
    const ours = held.storeId === id.storeId && recordDiffers(q.write, held) === null;
    if (ours && stateOf(held) === 'recording') continue;
    await freeAll();
    if (ours)
      throw problem(
        'dead_letter_already_recorded',
        `The ${id.kind} id ${id.id} of dead letter ${e.id} is recorded for this store already (an earlier attempt of it landed); nothing was sent and the dead letter stays`,
      );
    throw problem(
      'dead_letter_id_taken',
      `The ${id.kind} id ${id.id} of dead letter ${e.id} is now used by another write; nothing was sent and the dead letter stays`,
    );
  }
  return freeAll;
}
