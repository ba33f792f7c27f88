import type { ClaimLease } from '../money/lease';
import type { AuditTrail } from './trail';
import type { AuditAction, AuditSubject } from './types';

type Claimed = { action: AuditAction; storeId: string; terminalId?: string; lease?: ClaimLease; code: string; repair: string; subject: AuditSubject };

/**
 * The entry of an action whose claim the sweeps settled from the upstream's
 * record. `afterCrash` only when the claim's lease was over: its taker (who
 * crashed) never wrote the action's own entry; a claim settled within its
 * lease (a hold due at its end) is not a crash. A claim without a lease was
 * written by the release before leases, which nobody runs any more. `unchanged` records nothing.
 * Who did it is the claim's lease (terminal, cashier, shift, request); a
 * claim written before leases names only what its record keeps.
 */
export function auditSettledClaim(trail: AuditTrail | undefined, s: Claimed): void {
  if (s.code === 'unchanged') return;
  write(trail, s, 'settled');
}

/**
 * A claim the sweeps gave up on (long past its lease, still not on the
 * upstream's record): an `unknown` entry, which the reconciliation shows as
 * not settled.
 */
export function auditGivenUpClaim(trail: AuditTrail | undefined, s: Omit<Claimed, 'code'>): void {
  write(trail, { ...s, code: 'not_on_record' }, 'unknown');
}

function write(trail: AuditTrail | undefined, s: Claimed, outcome: 'settled' | 'unknown'): void {
  if (!trail) return;
  const { lease } = s;
  try {
    const at = trail.now();
    trail.record({
      storeId: s.storeId,
      terminalId: lease?.terminalId ?? s.terminalId ?? 'unknown',
      cashierId: lease?.cashierId,
      shiftId: lease?.shiftId,
      requestId: lease?.requestId,
      ...s.subject,
      at,
      action: s.action,
      outcome,
      code: s.code,
      repair: s.repair,
      ...(outcome === 'settled' && (lease === undefined || lease.until <= at) ? { afterCrash: true } : {}),
    });
  } catch {
    // The trail's loss, never the settlement's.
  }
}
