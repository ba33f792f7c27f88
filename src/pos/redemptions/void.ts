/** Voiding a held redemption: its hold released upstream. */
import { isProblem, problem } from '../../platform/problem';
import type { CallContext } from '../context';
import { claimActSettle } from '../money/claim-step';
import { redemptionForVoid } from './claims';
import type { Redemption } from './types';
import { redemptionView, RedemptionView } from './view';
import { auditNote } from '../audit/record';
import { redemptionSubject } from '../audit/subjects';
import { voidStandIn, type StandInDeps } from './stand-in';

/**
 * Voids a held redemption through the one claim -> act -> settle step: claimed
 * for the void (`voiding`: the rule a payment claims by, so of a void and a
 * payment racing exactly one wins), the hold released upstream, then `voided`.
 * A release the upstream refuses as already done is checked against the hold's
 * own record: ended means voided; used means a payment took it, and that is
 * what the redemption becomes, never `voided`.
 */
export async function voidRedemption(deps: StandInDeps, ctx: CallContext, id: string): Promise<RedemptionView> {
  // A stand-in (or one waiting for approval) has no hold to release: voided here, its floor-limit points given back (./stand-in.ts).
  const state = (await deps.redemptions.get(id, deps.clock()))?.state;
  if (state === 'stand_in' || state === 'stand_in_approval') return voidStandIn(deps, ctx, id);
  const voiding = redemptionForVoid(deps, ctx, id);
  await claimActSettle({
    what: `The void of redemption ${id}`,
    claims: [voiding],
    logger: deps.logger,
    send: async () => {
      const r = voiding.claimed;
      try {
        await deps.loyalty.holdCancel(r.holdReference as string, { requestId: ctx.requestId });
      } catch (err) {
        if (!isProblem(err, 'hold_already_cancelled', 'hold_not_active')) throw err;
        const hold = await deps.loyalty.holdLookup(r.holdReference as string, { requestId: ctx.requestId });
        if (hold.state === 'used') throw problem('redemption_used', `The hold of redemption ${id} was used by a payment; it cannot be voided`);
        if (hold.state !== 'expired' && hold.state !== 'released')
          throw problem('hold_state_unclear', `The loyalty service refused the release of redemption ${id}'s hold but calls it ${hold.state ?? 'nothing'}`);
      }
    },
    onRecord: async () => false,
    audit: auditNote(deps, ctx, 'redemption_void', () => redemptionSubject(id, voiding.claimed)),
  });
  return redemptionView(voiding.ended as Redemption, deps.clock());
}
