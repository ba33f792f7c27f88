/**
 * Writes deploy/grafana/dashboards/pos-loyalty-bff.json. The dashboard is built here, typed by
 * @grafana/schema's Dashboard and Panel, so `tsc` validates its shape; a test checks the JSON is
 * what this writes and that every metric it queries is served by a live BFF.
 *   npm run dashboard            write it
 *   npm run dashboard -- --check fail if the file differs
 */
import { readFileSync, writeFileSync } from 'node:fs';
import type { Dashboard, Panel } from '@grafana/schema';

export const DASHBOARD_FILE = 'deploy/grafana/dashboards/pos-loyalty-bff.json';
const datasource = { type: 'prometheus', uid: 'prometheus' };

let nextId = 1;
function panel(title: string, description: string, exprs: Record<string, string>, at: { x: number; y: number }, unit = 'short'): Panel {
  return {
    id: nextId++,
    type: 'timeseries',
    title,
    description,
    datasource,
    gridPos: { x: at.x, y: at.y, w: 12, h: 8 },
    fieldConfig: { defaults: { unit }, overrides: [] },
    options: {},
    targets: Object.entries(exprs).map(([legendFormat, expr], i) => ({ refId: String.fromCharCode(65 + i), datasource, expr, legendFormat })),
  };
}

export function dashboard(): Dashboard {
  nextId = 1;
  const rows: [string, string, Record<string, string>, string?][] = [
    ['Ready instances', 'pos_ready per instance: 1 when /readyz answers 200', { '{{instance}}': 'pos_ready' }],
    ['Till requests by status', 'Cashier API answers per second', { '{{status}}': 'sum by (status) (rate(http_requests_total[5m]))' }, 'reqps'],
    [
      'Till latency p95',
      'Time to answer a till, 95th percentile',
      { '{{route}}': 'histogram_quantile(0.95, sum by (le, route) (rate(http_request_duration_seconds_bucket[5m])))' },
      's',
    ],
    [
      'Loyalty calls by outcome',
      'Attempts sent to the loyalty service',
      { '{{outcome}}': 'sum by (outcome) (rate(loyalty_upstream_requests_total[5m]))' },
      'reqps',
    ],
    ['Loyalty circuit', '0 closed, 1 half-open, 2 open', { '{{instance}}': 'loyalty_upstream_circuit_state' }],
    [
      'Budget refusals',
      'Calls refused before sending by the fleet budget',
      { '{{operation}}': 'sum by (operation) (rate(pos_upstream_budget_refusals_total[5m]))' },
      'reqps',
    ],
    ['Holds open', 'Holds not ended, and stand-ins not yet paid or waiting for approval', { holds: 'max(pos_holds_open)' }],
    ['Outbox', 'Queued writes and dead letters', { depth: 'max(pos_outbox_depth)', 'dead letters (1h)': 'sum(increase(pos_outbox_dead_letters_total[1h]))' }],
    ['Redis', 'Connection up and data set losses', { '{{instance}} up': 'redis_up', 'losses (1h)': 'sum(increase(pos_redis_dataset_losses_total[1h]))' }],
    ['Repairs pending', 'Outcomes being settled from the loyalty service record', { '{{instance}}': 'pos_repairs_pending' }],
    ['Loyalty keys', '0 while the key pair in use is refused', { '{{instance}}': 'pos_loyalty_key_usable' }],
    [
      'Terminals registry',
      'Terminals file current, shared registry in step',
      { '{{instance}} file current': 'pos_terminals_file_current', '{{instance}} in step': 'pos_terminals_registry_in_step' },
    ],
  ];
  return {
    uid: 'pos-loyalty-bff',
    title: 'POS loyalty BFF',
    description: 'Tills, the loyalty service, the fleet budget, holds, outbox, Redis and terminals (deploy/prometheus/alerts.yml pages on the same metrics)',
    tags: ['pos', 'loyalty'],
    timezone: 'browser',
    editable: true,
    graphTooltip: 1,
    schemaVersion: 39,
    refresh: '30s',
    time: { from: 'now-6h', to: 'now' },
    panels: rows.map(([title, description, exprs, unit], i) => panel(title, description, exprs, { x: (i % 2) * 12, y: Math.floor(i / 2) * 8 }, unit)),
  };
}

export const dashboardJson = () => JSON.stringify(dashboard(), null, 2) + '\n';

if (require.main === module) {
  if (process.argv.includes('--check')) {
    if (readFileSync(DASHBOARD_FILE, 'utf8') !== dashboardJson()) {
      console.error(`${DASHBOARD_FILE} is out of date: npm run dashboard`);
      process.exit(1);
    }
  } else writeFileSync(DASHBOARD_FILE, dashboardJson());
}
