import { expectPrinted, NpmStart, readmeFence, readmePrints, startNpmStart } from './npm-start';

/**
 * The README's walkthroughs, run as written against `npm start`'s entry point
 * on free ports (given to the blocks as PORT and SANDBOX_PORT, as a reader
 * who changed them would have them), each twice in a row, each printing what
 * the README says it prints.
 */
describe('README walkthroughs', () => {
  let stack: NpmStart;
  beforeAll(async () => {
    stack = await startNpmStart();
  }, 40_000);
  afterAll(() => stack?.close());

  it('prints the demo tokens and where the API reference is', () => {
    expect(stack.started).toContain('tokens are shown once');
    expect(stack.started).toContain(`API reference: http://localhost:${stack.port}/docs`);
  });

  it('runs a whole checkout with points, twice, as the README shows it', async () => {
    const heading = '## A whole checkout with points';
    const first = await stack.run(readmeFence(heading, 'bash'));
    expectPrinted(first, readmePrints(heading));

    // The counters the walkthrough moved, as an operator sees them on /metrics.
    const metrics = await (await fetch(`http://127.0.0.1:${stack.port}/metrics`)).text();
    expect(metrics).toMatch(/http_requests_total\{method="POST",route="\/pos\/v1\/redemptions",status="201",role="cashier"\} 1\b/);
    expect(metrics).toMatch(/pos_redemption_transitions_total\{from="paying",to="redeemed"\} 1\b/);
    expect(metrics).toMatch(/loyalty_upstream_requests_total\{operation="payment",outcome="ok"\} 1\b/);
    expect(metrics).toMatch(/loyalty_upstream_requests_total\{operation="refund",outcome="ok"\} 1\b/);

    // Again, against the same running BFF: the same balances, a new redemption and sale.
    const second = await stack.run(readmeFence(heading, 'bash'));
    expectPrinted(second, readmePrints(heading));
    expect(second.split('\n')[2]).not.toBe(first.split('\n')[2]);
  }, 60_000);

  it('runs the coupon sale, twice, printing its receipt as shown', async () => {
    const heading = '### A coupon sale and its printed receipt';
    for (let run = 0; run < 2; run++) {
      const printed = await stack.run(readmeFence(heading, 'bash'));
      expectPrinted(printed, readmePrints(heading));
      expect(printed).toContain('Coupon WELCOME10');
    }
  }, 60_000);

  it('runs hold -> payment -> refund against the sandbox alone, twice', async () => {
    const heading = '## The sandbox alone';
    for (let run = 0; run < 2; run++) expectPrinted(await stack.run(readmeFence(heading, 'bash')), readmePrints(heading));
  }, 60_000);

  it('sets the sandbox faults the guide shows, as its comment says', async () => {
    const faults = `http://127.0.0.1:${stack.sandboxPort}/_sandbox/faults`;
    const keys = { apikey: 'sbx_demo_api_key', secretkey: 'sbx_demo_secret' };
    try {
      await stack.run(readmeFence('## The sandbox alone', 'bash', 1));
      const { rules } = (await (await fetch(faults, { headers: keys })).json()) as { rules: Record<string, unknown>[] };
      expect(rules).toEqual([
        expect.objectContaining({ operation: 'payment', status: 503, times: 2 }),
        expect.objectContaining({ operation: 'hold', latencyMs: 800 }),
        expect.objectContaining({ operation: 'events', drop: true, probability: 0.1 }),
      ]);
    } finally {
      await fetch(faults, { method: 'DELETE', headers: keys });
    }
  });
});
