import { z } from 'zod';
import { port } from './values';
import { feature, setting, type SliceOf } from './define';

/** Where an operator's endpoint is served: beside the cashier API, on the ops listener, or nowhere. */
export const OPS_PLACES = ['cashier_port', 'ops_port', 'off'] as const;
export type OpsPlace = (typeof OPS_PLACES)[number];

const place = z.enum(OPS_PLACES).optional();
const placeDoc = (what: string) =>
  `Where ${what} is served: cashier_port (beside /pos/v1, on PORT), ops_port (on OPS_HOST:OPS_PORT), off. ` +
  'Default: cashier_port outside production; with NODE_ENV=production ops_port when OPS_PORT is set, else off, so tills never reach it.';

export const ops = feature({
  title: 'Operator endpoints (metrics, API docs)',
  notes: ['/healthz and /readyz stay on PORT (the balancer and the image check them) and are on OPS_PORT too.'],
  settings: {
    host: setting('OPS_HOST', z.string().min(1).default('127.0.0.1'), {
      description: 'Interface of the ops listener; 0.0.0.0 only where the scraper sits on another machine (keep that network off the tills).',
    }),
    port: setting('OPS_PORT', port.optional(), {
      description: 'Port of a second listener for /metrics, /docs and /openapi.json (and health), away from the tills. Unset: none.',
      default: 'unset (no ops listener)',
      readme: 'a second port for `/metrics` and `/docs`, away from the tills (see `METRICS_ON`, `DOCS_ON`)',
    }),
    metrics: setting('METRICS_ON', place, {
      description: placeDoc('/metrics (Prometheus)'),
      default: 'cashier_port; in production ops_port with OPS_PORT, else off',
      readme: 'where `/metrics` is served: `cashier_port`, `ops_port`, `off`; in production only `ops_port` or `off` by default',
    }),
    docs: setting('DOCS_ON', place, {
      description: placeDoc('/docs (Swagger UI) with /openapi.json'),
      default: 'cashier_port; in production ops_port with OPS_PORT, else off',
      readme: 'where `/docs` and `/openapi.json` are served, as `METRICS_ON`',
    }),
  },
  read: (values, { env }, problems) => {
    const fallback: OpsPlace = env !== 'production' ? 'cashier_port' : values.port !== undefined ? 'ops_port' : 'off';
    const metrics = values.metrics ?? fallback;
    const docs = values.docs ?? fallback;
    for (const [variable, chosen] of [
      ['METRICS_ON', metrics],
      ['DOCS_ON', docs],
    ] as const) {
      if (chosen === 'ops_port' && values.port === undefined)
        problems.push(`${variable}: ops_port needs OPS_PORT (the port of the ops listener); set OPS_PORT or choose cashier_port or off`);
    }
    return { host: values.host, port: values.port, metrics, docs };
  },
});

export type OpsSettings = SliceOf<typeof ops>;
