import { mkdirSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { startStack, Stack } from '../support/e2e';
import { launchChromium } from './browser';


describe('/docs renders in a real browser', () => {
  let s: Stack;
  let browser: Browser;
  beforeAll(async () => {
    s = await startStack({ store: 'memory' });
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await s?.close();
  });

  it.each([
    ['bff', 'POS loyalty checkout: cashier API', '/pos/v1/redemptions', 'Redemptions'],
    ['sandbox', 'Loyalty service v4.0 (sandbox)', '/api/v4.0/integrations/transactions/hold', 'Published beyond the spec'],
  ] as const)('the %s page shows its operations, loads nothing from elsewhere, and breaks no CSP rule', async (which, title, operation, tag) => {
    const base = which === 'bff' ? s.bff.url : s.sandbox.url;
    const page = await browser.newPage({ viewport: { width: 1280, height: 1600 } });
    const problems: string[] = [];
    const foreign: string[] = [];
    page.on('console', (m) => { if (m.type() === 'error') problems.push(m.text()); });
    page.on('pageerror', (e) => problems.push(e.message));
    page.on('request', (r) => { if (!r.url().startsWith(base) && !r.url().startsWith('data:')) foreign.push(r.url()); });

    await page.goto(`${base}/docs`, { waitUntil: 'networkidle' });
    expect(page.url()).toBe(`${base}/docs/`);
    await page.getByText(operation, { exact: true }).first().waitFor({ timeout: 15_000 });
    const text = await page.locator('#swagger-ui').innerText();
    expect(text).toContain(title);
    expect(text).toContain(tag);
    expect(text).toContain(operation);
    if (which === 'bff') {
      for (const p of ['/pos/v1/payments', '/pos/v1/customers/{id}', '/pos/v1/refunds', '/metrics']) expect(text).toContain(p);
      expect(text).toContain('Authorize'); // the terminal token scheme
    }

    const dir = path.join(os.tmpdir(), 'posbff-docs-screenshots');
    mkdirSync(dir, { recursive: true });
    const file = path.join(dir, `${which}-docs.png`);
    await page.screenshot({ path: file, fullPage: false });
    expect(statSync(file).size).toBeGreaterThan(20_000);

    expect(foreign).toEqual([]);
    expect(problems).toEqual([]);
    await page.close();
  }, 60_000);
});
