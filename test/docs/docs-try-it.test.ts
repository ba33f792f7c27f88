import type { Browser, Page } from 'playwright-core';
import { startStack, Stack } from '../support/e2e';
import { launchChromium } from './browser';

/**
 * "Try it out" on /docs, in a real browser: every write goes with a new
 * Idempotency-Key, not the example Swagger UI fills in, so trying a second
 * request from the page is not refused as a reused key. A key typed by hand
 * is sent as typed (to try a replay on purpose).
 */
const OPERATION = '/pos/v1/coupons/validate';

describe('/docs try it out', () => {
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

  async function execute(page: Page): Promise<{ key: string | undefined; status: number }> {
    const sent = page.waitForRequest((r) => r.method() === 'POST' && r.url().endsWith(OPERATION));
    const answered = page.waitForResponse((r) => r.request().method() === 'POST' && r.url().endsWith(OPERATION));
    await page.locator('.opblock.is-open button.execute').click();
    const [request, response] = await Promise.all([sent, answered]);
    return { key: request.headers()['idempotency-key'], status: response.status() };
  }

  it('sends a fresh Idempotency-Key on each execute, and keeps one typed by hand', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 1600 } });
    await page.goto(`${s.bff.url}/docs`, { waitUntil: 'networkidle' });
    // Authorize with a cashier token, as a developer would.
    await page.getByRole('button', { name: 'Authorize' }).first().click();
    await page.locator('.modal-ux input[type=text], .modal-ux input:not([type])').first().fill(s.tokens.cashier);
    await page.locator('.modal-ux button.authorize').first().click();
    await page.locator('.modal-ux button.btn-done').first().click();

    const block = page.locator('.opblock-post').filter({ has: page.locator(`[data-path="${OPERATION}"]`) });
    await block.locator('.opblock-summary').first().click();
    await block.locator('button.try-out__btn').click();
    const keyInput = block.locator('tr[data-param-name="Idempotency-Key"] input');
    const example = await keyInput.inputValue();
    expect(example).not.toBe(''); // Swagger UI pre-fills the documented example

    const first = await execute(page);
    const second = await execute(page);
    expect(first.key).toMatch(/^docs-[0-9a-f]{32}$/);
    expect(second.key).toMatch(/^docs-[0-9a-f]{32}$/);
    expect(second.key).not.toBe(first.key);
    expect([first.status, second.status]).not.toContain(422);
    expect(second.status).toBe(first.status);
    expect(first.status).not.toBe(401); // the Authorize dialog took the token

    await keyInput.fill('my-own-key-1');
    const typed = await execute(page);
    expect(typed.key).toBe('my-own-key-1');
    const again = await execute(page);
    expect(again.key).toBe('my-own-key-1');
    await page.close();
  }, 60_000);
});
