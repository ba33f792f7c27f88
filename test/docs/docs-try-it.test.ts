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

async function execute(page: Page): Promise<{ key: string | undefined; requestId: string | undefined; url: string; status: number; code?: string }> {
  const sent = page.waitForRequest((r) => r.method() === 'POST' && r.url().endsWith(OPERATION));
  const answered = page.waitForResponse((r) => r.request().method() === 'POST' && r.url().endsWith(OPERATION));
  await page.locator('.opblock.is-open button.execute').click();
  const [request, response] = await Promise.all([sent, answered]);
  const code = ((await response.json().catch(() => ({}))) as { code?: string }).code;
  return { key: request.headers()['idempotency-key'], requestId: request.headers()['x-request-id'], url: request.url(), status: response.status(), code };
}

/** Opens /docs at `docsUrl`, authorizes with `token`, and opens the operation's "Try it out". */
async function tryOut(browser: Browser, docsUrl: string, token: string): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 1600 } });
  await page.goto(`${docsUrl}/docs`, { waitUntil: 'networkidle' });
  await page.getByRole('button', { name: 'Authorize' }).first().click();
  await page.locator('.modal-ux input[type=text], .modal-ux input:not([type])').first().fill(token);
  await page.locator('.modal-ux button.authorize').first().click();
  await page.locator('.modal-ux button.btn-done').first().click();
  const block = page.locator('.opblock-post').filter({ has: page.locator(`[data-path="${OPERATION}"]`) });
  await block.locator('.opblock-summary').first().click();
  await block.locator('button.try-out__btn').click();
  return page;
}

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
    // No example request id filled in: each call is logged under an id of its own, not one shared by every try.
    expect([first.requestId, second.requestId]).toEqual([undefined, undefined]);

    await keyInput.fill('my-own-key-1');
    const typed = await execute(page);
    expect(typed.key).toBe('my-own-key-1');
    const again = await execute(page);
    expect(again.key).toBe('my-own-key-1');
    await page.close();
  }, 60_000);
});

describe('/docs on the ops port: "Try it out" calls the cashier API', () => {
  let s: Stack;
  let browser: Browser;
  beforeAll(async () => {
    s = await startStack({ store: 'memory', env: { OPS_PORT: '0', OPS_HOST: '127.0.0.1', DOCS_ON: 'ops_port' } });
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await s?.close();
  });

  it('sends the call to the till port (answered there, not 404 from the ops port), from a page whose CSP allows exactly that', async () => {
    const ops = s.bff.ops!;
    const page = await tryOut(browser, ops.url, s.tokens.cashier);
    const done = await execute(page);
    expect(done.url).toBe(`${s.bff.url}${OPERATION}`);
    // Answered by the cashier API's route (the example customer is unknown to the sandbox), not "no such route" of the ops port.
    expect(done.code).not.toBe('route_not_found');
    expect(done.status).not.toBe(401);
    expect(done.status).toBeLessThan(500);
    expect(done.requestId).toBeUndefined();
    await page.close();

    const doc = (await (await fetch(`${ops.url}/openapi.json`)).json()) as { servers: { url: string }[] };
    expect(doc.servers).toEqual([expect.objectContaining({ url: s.bff.url })]);
    const csp = (await fetch(`${ops.url}/docs/`)).headers.get('content-security-policy');
    expect(csp).toContain(`connect-src 'self' ${s.bff.url}`);
  }, 60_000);

  it('the cashier API lets the docs origin call it from a browser, and no other origin', async () => {
    const preflight = (origin: string) =>
      fetch(`${s.bff.url}${OPERATION}`, {
        method: 'OPTIONS',
        headers: { Origin: origin, 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'authorization,content-type,idempotency-key' },
      });
    const docs = await preflight(s.bff.ops!.url);
    expect(docs.status).toBe(204);
    expect(docs.headers.get('access-control-allow-origin')).toBe(s.bff.ops!.url);
    const other = await preflight('http://evil.example:9090');
    expect(other.status).toBe(403);
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
    // The ops port's number on another host name is another origin.
    const otherHost = await preflight(s.bff.ops!.url.replace('127.0.0.1', 'localhost'));
    expect(otherHost.headers.get('access-control-allow-origin')).toBeNull();
  });
});
