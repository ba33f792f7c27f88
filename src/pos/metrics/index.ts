export { httpMetrics, markRouteBase, metricsRoute, routeLabel, UNMATCHED_ROUTE } from './http';
export { countExpiredHold, instrumentRedemptions } from '../redemptions/metrics';
export { countUpstreamCall } from './upstream';
export { countRegistration } from '../customers/metrics';
