import type { Metrics } from '../../platform/metrics';

/** How a till's registration ended: `failed` is any error after the body was valid (refused, or the service out of reach). */
export type RegistrationMetricOutcome = 'created' | 'updated' | 'failed';

/** One registration counted; the registration success rate is created + updated over all three. */
export function countRegistration(metrics: Metrics, outcome: RegistrationMetricOutcome): void {
  metrics.customerRegistrations.inc({ outcome });
}
