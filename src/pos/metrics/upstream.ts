import type { Metrics } from '../../platform/metrics';
import type { UpstreamCallEvent } from '../../upstream';

/** For `LoyaltyClient({ onCall })`: one count and one latency sample per attempt. */
export function countUpstreamCall(metrics: Metrics): (e: UpstreamCallEvent) => void {
  return (e) => {
    const labels = { operation: e.operation, outcome: e.outcome };
    metrics.upstreamCalls.inc(labels);
    metrics.upstreamDuration.observe(labels, e.durationMs / 1000);
  };
}
