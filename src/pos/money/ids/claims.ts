import { renewLease } from '../lease';
import type { Claim } from '../claim-step';
import { applyTransition, SALE_TRANSITIONS } from '../machines';
import type { Repair } from '../repairs';
import { stateOf, type IdEntry, type IdRecords } from './records';
import { earlierAttemptMayHaveLanded } from '../../../upstream';
import { onRecordOfCall, type Verdict } from './same-write';

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
 * Settles a claimed id from the upstream's record (`check`, given by the
 * feature: same-write.ts): this very write on record, it is the claiming
 * store's (`recorded`). Not on record proves nothing (the write may still be
 * in flight, or queued), nor does a write that differs or cannot be shown, so
 * the claim is never deleted here: it is asked again later, and stands until
 * the same request settles it or its TTL ends. Only a definite refusal frees an id.
 */
export async function settleId<E extends IdEntry>(records: IdRecords<E>, e: E, check: () => Promise<Verdict>): Promise<string> {
  const v = await check();
  if (v.kind !== 'same') throw new NotOnRecordYet(`${e.kind} ${e.id} is not on the upstream's record as this write yet: ${v.why}`);
  const r = await records.apply(e.kind, e.id, 'recorded', { when: (cur) => cur.storeId === e.storeId || `it is ${stateOf(cur)}` });
  return r.ok ? 'recorded' : 'unchanged';
}

/** What the feature tells an id's claim: whose write an entry is, how to ask the upstream's record, and the refusal when the id is another's. */
export interface IdClaimRules<E extends IdEntry> {
  /** The entry holding the id may be this write's earlier attempt (a till's retry): not another write under the id as far as it shows. */
  sameWrite(held: E): boolean;
  /** The till's refusal when it is another's. */
  taken(): Error;
  /** Is the write under the id on the upstream's record this write? `record`: the BFF's own record of the earlier write (null: none). */
  check(record: E | null): Promise<Verdict>;
  /** The answer leaves the id claimed (queued in the outbox, or accepted later by a job): settled by whoever finishes it. */
  settledElsewhere?(answer: unknown): boolean;
}

/** An id's claim, which also answers the till path's question after a duplicate: is this write the one on record? */
export interface IdClaim<E extends IdEntry = IdEntry> extends Claim {
  /** The entry of an earlier attempt of this write that held the id when it was taken (a till's retry); undefined for a fresh claim. */
  readonly earlier: E | undefined;
  /**
   * After `duplicate`: true, this very write is on record; false, the record does not show it;
   * throws a FinalVerdict when another write holds the id or it cannot be shown either way (same-write.ts).
   */
  onRecord(duplicate?: unknown): Promise<boolean>;
}

/**
 * An id claimed for this store (`recording`) before its write goes upstream;
 * `recorded` once the upstream accepted it; a refusal deletes the claim. The
 * same id sent again by the same write (a till's retry) carries on; then a
 * refusal does not free it, since the earlier attempt may have landed: the
 * upstream's record decides.
 */
export function idClaim<E extends IdEntry>(deps: IdClaimDeps<E>, at: Pick<E, 'kind' | 'id' | 'storeId'>, entryOf: () => E, rules: IdClaimRules<E>): IdClaim<E> {
  const { kind, id, storeId } = at;
  let again = false;
  // The BFF's record of the earlier write under the id: the entry that held it (an earlier attempt's, kept
  // because it may have landed, or a recorded write). None when this call claimed the id afresh.
  let earlier: E | undefined;
  let mine: E | undefined;
  return {
    name: `${kind} ${id}`,
    get again() {
      return again;
    },
    get earlier() {
      return earlier;
    },
    async take() {
      // Made when taken: the write's identity names the hold and lock the claims before it took.
      const got = await deps.records.claim(entryOf());
      if (got.ok) {
        mine = got.entry;
        return;
      }
      earlier = got.entry;
      const held = got.entry;
      if (!rules.sameWrite(held)) throw rules.taken();
      // Still `recording`: an earlier attempt's outcome is not known, and it may have landed. `recorded`: it was applied.
      again = stateOf(held) === 'recording';
      // A retry's claim starts its lease again (its taker settles it once more); best effort, the claim stands either way.
      if (again) {
        await deps.records.change(kind, id, (cur) => (cur.storeId === storeId && stateOf(cur) === 'recording' ? renewLease(cur) : cur)).catch(() => undefined);
      }
    },
    // A fresh claim's own entry records the earlier write only when an attempt of this very call may have landed
    // (the duplicate is then perhaps its own); else the BFF has no record of it, and cannot vouch for what the upstream does not show.
    onRecord: (duplicate) => onRecordOfCall(rules.check(earlier ?? (earlierAttemptMayHaveLanded(duplicate) ? (mine ?? entryOf()) : null))),
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
    async free(_refusal, final) {
      if (again && !final) return this.settleLater();
      await deps.records.free(kind, id, storeId);
    },
    settleLater() {
      // Unknown outcome: this call's attempt may have landed, so its own entry records the write.
      const e = earlier ?? mine ?? entryOf();
      deps.repairs?.add({ key: `sale:${kind}:${id}`, settle: () => settleId(deps.records, e, () => rules.check(e)), until: Date.now() + ID_REPAIR_MS });
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
