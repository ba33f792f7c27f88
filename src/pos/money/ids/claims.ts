import type { Claim } from '../claim-step';
import { applyTransition, SALE_TRANSITIONS } from '../machines';
import type { Repair } from '../repairs';
import { stateOf, type IdEntry, type IdRecords } from './records';

/** What claiming an id uses: its records and the repair queue. */
export type IdClaimDeps<E extends IdEntry> = { records: IdRecords<E>; repairs?: { add(repair: Repair): void } };

/**
 * How long an id whose write may have landed is asked about: a write in
 * flight lands within its timeouts, far inside this. After it, the claim
 * stands until the same request settles it or its TTL ends.
 */
export const ID_REPAIR_MS = 15 * 60_000;

/** The upstream's record does not show the write (yet): it may still land, so the claim stands and is asked again later. */
export class NotOnRecordYet extends Error {}

/**
 * Settles a claimed id from the upstream's record (`onRecord`, given by the
 * feature): on record, it is the claiming store's (`recorded`). Not on record
 * proves nothing (the write may still be in flight, or queued), so the claim is
 * never deleted here: it is asked again later, and stands until the same
 * request settles it or its TTL ends. Only a definite refusal frees an id.
 */
export async function settleId<E extends IdEntry>(records: IdRecords<E>, e: E, onRecord: () => Promise<boolean>): Promise<string> {
  if (!(await onRecord())) throw new NotOnRecordYet(`${e.kind} ${e.id} is not on the upstream's record yet`);
  const r = await records.apply(e.kind, e.id, 'recorded', { when: (cur) => cur.storeId === e.storeId || `it is ${stateOf(cur)}` });
  return r.ok ? 'recorded' : 'unchanged';
}

/** What the feature tells an id's claim: whose write an entry is, how to ask the upstream's record, and the refusal when the id is another's. */
export interface IdClaimRules<E extends IdEntry, X> {
  /** The entry holding the id is this write's earlier attempt (a till's retry), not another write under the id. */
  sameWrite(held: E): boolean;
  /** The till's refusal when it is another's. */
  taken(): Error;
  /** What the upstream's record must show for this write, and for an earlier attempt's entry. */
  expect: X;
  expectOf(held: E): X;
  onRecord(e: E, expect: X): Promise<boolean>;
  /** The answer leaves the id claimed (queued in the outbox, or accepted later by a job): settled by whoever finishes it. */
  settledElsewhere?(answer: unknown): boolean;
}

/**
 * An id claimed for this store (`recording`) before its write goes upstream;
 * `recorded` once the upstream accepted it; a refusal deletes the claim. The
 * same id sent again by the same write (a till's retry) carries on; then a
 * refusal does not free it, since the earlier attempt may have landed: the
 * upstream's record decides.
 */
export function idClaim<E extends IdEntry, X>(deps: IdClaimDeps<E>, mine: E, rules: IdClaimRules<E, X>): Claim {
  const { kind, id, storeId } = mine;
  let again = false;
  // What settles the id: this write's record, or, when an earlier attempt holds the claim, that attempt's.
  let settleBy: { entry: E; expect: X } = { entry: mine, expect: rules.expect };
  return {
    name: `${kind} ${id}`,
    get again() {
      return again;
    },
    async take() {
      const got = await deps.records.claim(mine);
      if (got.ok) return;
      const held = got.entry;
      if (!rules.sameWrite(held)) throw rules.taken();
      // Still `recording`: an earlier attempt's outcome is not known, and it may have landed. `recorded`: it was applied.
      again = stateOf(held) === 'recording';
      if (again) settleBy = { entry: held, expect: rules.expectOf(held) };
    },
    async finish(answer) {
      if (rules.settledElsewhere?.(answer)) {
        // Out of the lease sweep's sight: the outbox (or the job) settles it. Best effort: the write is queued
        // whatever happens here, and a claim left in sight is only asked about (not on record yet: asked again later).
        await deps.records
          .change(kind, id, (cur) => (cur.storeId === storeId && stateOf(cur) === 'recording' ? { ...cur, queued: true } : cur))
          .catch(() => undefined);
        return;
      }
      // Already past `recording` (a retry of a recorded write): left as it is.
      const r = await deps.records.change(kind, id, (cur) =>
        cur.storeId !== storeId ? 'another store' : stateOf(cur) === 'recording' ? applyTransition(SALE_TRANSITIONS.recorded, 'recording', cur) : cur,
      );
      if (!r.ok) throw new Error(`${kind} ${id}: ${r.detail}`);
    },
    async free() {
      if (again) return this.settleLater();
      await deps.records.free(kind, id, storeId);
    },
    settleLater() {
      const { entry: e, expect: x } = settleBy;
      deps.repairs?.add({ key: `sale:${kind}:${id}`, settle: () => settleId(deps.records, e, () => rules.onRecord(e, x)), until: Date.now() + ID_REPAIR_MS });
    },
  };
}

/**
 * A queued write's id the outbox finished: delivered makes it the store's
 * (`recorded`), a dead letter of a definite refusal frees it. A dead letter
 * given up after attempts that may have landed (timeouts, 5xx) leaves the
 * claim standing: the write may be done. Ids not claimed by that store are left alone.
 */
export async function settleQueuedId<E extends IdEntry>(
  records: IdRecords<E>,
  e: { kind: E['kind']; id: string; storeId: string; mayHaveLanded?: boolean },
  delivered: boolean,
): Promise<void> {
  if (!delivered && e.mayHaveLanded) return;
  if (delivered) {
    await records.apply(e.kind, e.id, 'recorded', { when: (cur) => cur.storeId === e.storeId || 'not a queued claim' });
  } else {
    await records.free(e.kind, e.id, e.storeId);
  }
}
