import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import request from 'supertest';
import { parse } from 'yaml';
import { startStack, Stack } from '../support/e2e';
import { dashboard, dashboardJson, DASHBOARD_FILE } from '../../scripts/grafana-dashboard';

/**
 * The alert rules, the Prometheus config and the dashboard an operator ships (deploy/prometheus,
 * deploy/grafana): checked by promtool (Debian's prometheus package; .ci/run installs it, and a
 * missing promtool fails here, never skips), and every metric and label they name checked against
 * what a live BFF serves on /metrics.
 */
const RULES = 'deploy/prometheus/alerts.yml';
type Rule = { alert: string; expr: string; labels: Record<string, string>; annotations: Record<string, string> };
const rules: Rule[] = parse(readFileSync(RULES, 'utf8')).groups.flatMap((g: { rules: Rule[] }) => g.rules);

function promtool(...args: string[]) {
  const r = spawnSync('promtool', args, { encoding: 'utf8' });
  if (r.error) throw new Error(`promtool did not run (${r.error.message}): apt-get install prometheus, as .ci/run does`);
  return r;
}

// PromQL functions, keywords and the labels Prometheus itself adds to every scraped series.
const NOT_METRICS = new Set([
  'sum',
  'by',
  'rate',
  'increase',
  'histogram_quantile',
  'max',
  'min',
  'without',
  'and',
  'or',
  'unless',
  'on',
  'ignoring',
  'offset',
]);
const SCRAPE_LABELS = new Set(['instance', 'job']);

/** Metric names and label names in a PromQL expression (selectors, `by (...)` and matchers). */
export function namesIn(expr: string): { metrics: string[]; labels: string[] } {
  const labels = new Set<string>();
  const withoutStrings = expr.replace(/"(?:[^"\\]|\\.)*"/g, '""');
  for (const m of withoutStrings.matchAll(/\{([^}]*)\}/g)) for (const l of m[1].matchAll(/(\w+)\s*[=!~]/g)) labels.add(l[1]);
  for (const m of withoutStrings.matchAll(/\b(?:by|without)\s*\(([^)]*)\)/g)) for (const l of m[1].split(',')) if (l.trim()) labels.add(l.trim());
  const bare = withoutStrings
    .replace(/\{[^}]*\}/g, '')
    .replace(/\[[^\]]*\]/g, '')
    .replace(/\b(?:by|without)\s*\([^)]*\)/g, '');
  const metrics = [...bare.matchAll(/\b([a-zA-Z_:][\w:]*)\b/g)].map((m) => m[1]).filter((n) => !NOT_METRICS.has(n) && !/^\d/.test(n));
  return { metrics: [...new Set(metrics)], labels: [...labels] };
}

describe('alert rules and Prometheus config (promtool)', () => {
  it('promtool checks the rules and the scrape config, and the rules unit tests pass', () => {
    for (const args of [
      ['check', 'rules', RULES],
      ['check', 'config', 'deploy/prometheus/prometheus.yml'],
      ['test', 'rules', 'deploy/prometheus/alerts.test.yml'],
    ]) {
      const r = promtool(...args);
      expect({ args, status: r.status, out: r.status === 0 ? '' : r.stdout + r.stderr }).toEqual({ args, status: 0, out: '' });
    }
  });

  it('pages on each thing an operator must act on, each alert with a severity and a runbook section', () => {
    const names = rules.map((r) => r.alert);
    for (const must of [
      'PosBffNotReady',
      'PosLoyaltyErrors',
      'PosLoyaltyCircuitOpen',
      'PosLoyaltyKeyRefused',
      'PosBudgetRefusals',
      'PosOutboxBacklog',
      'PosOutboxDeadLetters',
      'PosRedisDown',
      'PosRedisDataLost',
      'PosRepairsPending',
      'PosReconciliationAnomalies',
      'PosTerminalsReloadFailed',
    ])
      expect(names).toContain(must);
    const tested = readFileSync('deploy/prometheus/alerts.test.yml', 'utf8');
    const guide = readFileSync('docs/operator/monitoring.md', 'utf8');
    const anchors = new Set(
      [...guide.matchAll(/^### (.+)$/gm)].map((m) =>
        m[1]
          .trim()
          .toLowerCase()
          .replace(/[^\w\- ]/g, '')
          .replace(/ /g, '-'),
      ),
    );
    for (const r of rules) {
      expect([r.alert, ['page', 'ticket'].includes(r.labels.severity)]).toEqual([r.alert, true]);
      // Every alert is exercised by a promtool unit test.
      expect([r.alert, tested.includes(`alertname: ${r.alert}\n`)]).toEqual([r.alert, true]);
      expect(r.annotations.runbook_url).toBe(`docs/operator/monitoring.md#${r.alert.toLowerCase()}`);
      expect([r.alert, anchors.has(r.alert.toLowerCase())]).toEqual([r.alert, true]);
    }
    // And every runbook section is an alert's.
    const runbooks = [...guide.matchAll(/^### (Pos\w+)$/gm)].map((m) => m[1]);
    expect(runbooks.sort()).toEqual([...names].sort());
  });
});

describe('the dashboard (deploy/grafana)', () => {
  it('is what scripts/grafana-dashboard.ts writes (typed by @grafana/schema, so tsc validates its shape)', () => {
    expect(readFileSync(DASHBOARD_FILE, 'utf8')).toBe(dashboardJson());
    const d = dashboard();
    expect(d.uid).toBe('pos-loyalty-bff');
    expect(d.panels?.length).toBeGreaterThanOrEqual(10);
    // Every panel queries the provisioned Prometheus data source.
    const datasource = parse(readFileSync('deploy/grafana/provisioning/datasources/prometheus.yml', 'utf8')).datasources[0];
    for (const p of d.panels ?? []) expect((p as { datasource?: { uid?: string } }).datasource?.uid).toBe(datasource.uid);
  });
});

describe('every metric and label the rules and the dashboard name, on a live BFF /metrics', () => {
  let s: Stack;
  beforeAll(async () => {
    s = await startStack({ store: 'redis' });
  }, 60_000);
  afterAll(async () => {
    await s?.close();
  });

  it('parses names out of PromQL', () => {
    expect(namesIn('sum by (instance) (rate(loyalty_upstream_requests_total{outcome=~"a|b"}[5m])) > 0.05')).toEqual({
      metrics: ['loyalty_upstream_requests_total'],
      labels: ['outcome', 'instance'],
    });
  });

  it('serves them all', async () => {
    // Traffic that makes the labelled series appear: a sale (tills, upstream calls) and a readiness probe.
    await s.seed('mon-cust', 100);
    await s
      .pos('cashier')
      .post('/payments', { paymentId: 'mon-sale-1', customerId: 'mon-cust', amount: 10, currency: 'EUR' })
      .set('Idempotency-Key', 'mon-sale-1');
    await request(s.bff.url).get('/readyz');
    const text = (await request(s.bff.url).get('/metrics').expect(200)).text;
    const served = new Set([...text.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]));
    const exprs = [
      ...rules.map((r) => ({ from: `alert ${r.alert}`, expr: r.expr })),
      ...(dashboard().panels ?? []).flatMap((p) =>
        ((p as { targets?: { expr: string }[] }).targets ?? []).map((t) => ({ from: `panel ${p.title}`, expr: t.expr })),
      ),
    ];
    const missing: string[] = [];
    for (const { from, expr } of exprs) {
      const { metrics, labels } = namesIn(expr);
      for (const name of metrics) {
        if (name === 'up') continue; // Prometheus's own series for each scrape target
        const family = name.replace(/_(bucket|sum|count)$/, '');
        if (!served.has(name) && !served.has(family)) {
          missing.push(`${from}: metric ${name}`);
          continue;
        }
        const defined = (s.bff.metrics.registry.getSingleMetric(family) as unknown as { labelNames?: string[] } | undefined)?.labelNames ?? [];
        for (const label of labels)
          if (!SCRAPE_LABELS.has(label) && !(label === 'le' && family !== name) && !defined.includes(label))
            missing.push(`${from}: label ${label} of ${family}`);
      }
    }
    expect(missing).toEqual([]);
  });
});
