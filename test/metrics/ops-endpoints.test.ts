import { ConfigError, loadConfig } from '../../src/platform/config';
import { startStack, Stack } from '../support/e2e';

/**
 * /metrics and /docs are for operators: production keeps them off the port
 * the tills call, on a listener of their own (OPS_PORT) or nowhere, and
 * METRICS_ON / DOCS_ON choose explicitly. Health stays on the cashier port.
 */
const status = async (url: string) => (await fetch(url)).status;

describe('where /metrics and /docs are served', () => {
  const stacks: Stack[] = [];
  afterAll(async () => {
    await Promise.all(stacks.map((s) => s.close()));
  });
  const stack = async (env: Record<string, string>) => {
    const s = await startStack({ store: 'memory', env });
    stacks.push(s);
    return s;
  };

  it('production without OPS_PORT: neither is on the till port; health is', async () => {
    const s = await stack({ NODE_ENV: 'production' });
    expect(s.bff.ops).toBeUndefined();
    for (const path of ['/metrics', '/docs/', '/openapi.json']) expect({ path, status: await status(`${s.bff.url}${path}`) }).toEqual({ path, status: 404 });
    expect(await status(`${s.bff.url}/healthz`)).toBe(200);
    // The till API itself is unchanged.
    const res = await fetch(`${s.bff.url}/pos/v1/redemptions/rdm_nothinghere1`, { headers: { Authorization: `Bearer ${s.tokens.cashier}` } });
    expect(res.status).toBe(404);
  });

  it('production with OPS_PORT: both on the ops listener, none on the till port', async () => {
    const s = await stack({ NODE_ENV: 'production', OPS_PORT: '0' });
    const ops = s.bff.ops!;
    expect(ops.port).not.toBe(s.bff.port);
    const metrics = await fetch(`${ops.url}/metrics`);
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toMatch(/^# HELP /m);
    expect(await status(`${ops.url}/docs/`)).toBe(200);
    expect(((await (await fetch(`${ops.url}/openapi.json`)).json()) as { openapi: string }).openapi).toMatch(/^3\./);
    expect(await status(`${ops.url}/readyz`)).toBe(200);
    for (const path of ['/metrics', '/docs/', '/openapi.json']) expect({ path, status: await status(`${s.bff.url}${path}`) }).toEqual({ path, status: 404 });
    // The ops listener is no way into the cashier API.
    const pos = await fetch(`${ops.url}/pos/v1/redemptions/rdm_nothinghere1`, { headers: { Authorization: `Bearer ${s.tokens.cashier}` } });
    expect(pos.status).toBe(404);
  });

  it('METRICS_ON and DOCS_ON choose each one: metrics beside the till API, docs off', async () => {
    const s = await stack({ NODE_ENV: 'production', METRICS_ON: 'cashier_port', DOCS_ON: 'off' });
    expect(await status(`${s.bff.url}/metrics`)).toBe(200);
    expect(await status(`${s.bff.url}/docs/`)).toBe(404);
    expect(await status(`${s.bff.url}/openapi.json`)).toBe(404);
  });

  it('outside production both stay beside the till API (npm start, the walkthrough)', async () => {
    const s = await stack({ NODE_ENV: 'development' });
    expect(await status(`${s.bff.url}/metrics`)).toBe(200);
    expect(await status(`${s.bff.url}/docs/`)).toBe(200);
  });

  it('refuses ops_port without OPS_PORT, and OPS_PORT equal to PORT, naming the setting', () => {
    const problems = (env: Record<string, string>) => {
      try {
        loadConfig(env);
        return '';
      } catch (err) {
        return (err as ConfigError).message;
      }
    };
    expect(problems({ METRICS_ON: 'ops_port' })).toContain('METRICS_ON: ops_port needs OPS_PORT');
    expect(problems({ DOCS_ON: 'ops_port' })).toContain('DOCS_ON: ops_port needs OPS_PORT');
    expect(problems({ PORT: '9000', OPS_PORT: '9000' })).toContain('OPS_PORT: 9000 is PORT too');
    expect(problems({ METRICS_ON: 'somewhere' })).toContain('METRICS_ON');
    expect(loadConfig({ NODE_ENV: 'production', OPS_PORT: '9100' }).ops).toMatchObject({ metrics: 'ops_port', docs: 'ops_port', host: '127.0.0.1' });
    expect(loadConfig({ NODE_ENV: 'production' }).ops).toMatchObject({ metrics: 'off', docs: 'off' });
    expect(loadConfig({}).ops).toMatchObject({ metrics: 'cashier_port', docs: 'cashier_port' });
  });
});
