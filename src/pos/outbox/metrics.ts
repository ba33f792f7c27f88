import type { Metrics } from '../../platform/metrics';
import type { DeliveryOutcome, OutboxEntry } from './types';

/** The worker's onOutcome hook: deliveries by operation and outcome, and dead letters. */
export function countOutboxOutcome(metrics: Metrics): (entry: OutboxEntry, outcome: DeliveryOutcome) => void {
  return (entry, outcome) => {
    const operation = entry.work.kind;
    const label = outcome.kind === 'delivered' && outcome.result.alreadyRecorded ? 'already_applied' : outcome.kind;
    metrics.outboxDeliveries.inc({ operation, outcome: label });
    if (outcome.kind === 'dead') metrics.outboxDeadLetters.inc({ operation });
  };
}
