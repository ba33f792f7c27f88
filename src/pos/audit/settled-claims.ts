import type { ClaimLease } from '../money/lease';
import type { AuditTrail } from './trail';
import type { AuditAction, AuditSubject } from './types';

/**
 * The entry of an action whose outcome was lost in a crash, once the lease
 * sweeps settled its claim from the upstream's record: the action's own entry
 * never came. Who did it is the claim's lease (terminal, cashier, shift,
 * request); a claim written before leases names only what its record keeps.
 */
export function auditSettledClaim(
  trail: AuditTrail | undefined,
  s: { action: AuditAction; storeId: string; terminalId?: string; lease?: ClaimLease; code: string; repair: string; subject: AuditSubject },
): void {
  if (!trail) return;
  const { lease } = s;
  try {
    trail.record({
      storeId: s.storeId,
      terminalId: lease?.terminalId ?? s.terminalId ?? 'unknown',
      cashierId: lease?.cashierId,
      shiftId: lease?.shiftId,
      requestId: lease?.requestId,
      ...s.subject,
      at: trail.now(),
      action: s.action,
      outcome: 'settled',
      code: s.code,
      repair: s.repair,
      afterCrash: true,
    });
  } catch {
    // The trail's loss, never the settlement's.
  }
}
